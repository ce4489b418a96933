//! The `Cuda` space's memory side: device Views, deep copies in every
//! direction and layout, mirrors, selection and limits. Every check runs
//! on the emulator; the `live_*` tests run the same checks on GPU 0 and
//! skip with a printed reason when there is none (unless
//! `GRANULE_REQUIRE_GPU=1`).

use granule_core::ExecutionSpace;
use granule_cuda::device_api::DeviceError;
use granule_cuda::emu::EmuDevice;
use granule_cuda::{Cuda, CudaSelection, CudaSpace};
use granule_views::{
    create_mirror, create_mirror_view, create_mirror_view_and_copy, deep_copy, LayoutLeft,
    LayoutRight, View, View1, View2, ViewError, ALL,
};

fn emulated() -> Cuda {
    Cuda::emulated().expect("the emulator needs g++")
}

/// GPU 0 as a space, or `None` (with the reason printed) when there is none.
fn gpu(test: &str) -> Option<Cuda> {
    granule_cuda::gpu::device_or_skip(0, test).map(|g| Cuda::with_device(std::sync::Arc::new(g)))
}

/// The host values of a device View, in index order.
fn host_values<T: granule_views::Element, const R: usize, L: granule_views::Layout>(
    v: &View<T, R, L, CudaSpace>,
) -> Vec<T> {
    create_mirror_view_and_copy(v).unwrap().as_view().to_vec()
}

fn zeroed_views_of_rank_1_and_2(cuda: &Cuda) {
    let a = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "a", 1000).unwrap();
    assert_eq!((a.label(), a.extents()), ("a", [1000]));
    assert_eq!(host_values(&a), vec![0.0; 1000]);
    let b =
        View2::<i32, LayoutLeft, CudaSpace>::zeros_in(cuda.memory_space(), "b", [7, 5]).unwrap();
    assert_eq!((b.extents(), b.strides()), ([7, 5], [1, 7]));
    assert_eq!(host_values(&b), vec![0; 35]);
    let empty =
        View2::<u8, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "e", [0, 3]).unwrap();
    assert!(host_values(&empty).is_empty());
}

fn right_round_trip(cuda: &Cuda) {
    let host = View2::<f64>::from_fn("h", [13, 17], |[i, j]| (100 * i + j) as f64).unwrap();
    let mut d1 =
        View2::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "d1", [13, 17])
            .unwrap();
    let mut d2 =
        View2::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "d2", [13, 17])
            .unwrap();
    deep_copy(&mut d1, &host).unwrap();
    deep_copy(&mut d2, &d1).unwrap();
    let mut back = View2::<f64>::zeros("back", [13, 17]).unwrap();
    deep_copy(&mut back, &d2).unwrap();
    assert_eq!(back.to_vec(), host.to_vec());
}

fn left_round_trip_through_mapped_copies(cuda: &Cuda) {
    let host = View2::<i64>::from_fn("h", [6, 9], |[i, j]| (10 * i + j) as i64 - 20).unwrap();
    let space = cuda.memory_space();
    // Host Right -> device Left: staged through a host gather.
    let mut left =
        View2::<i64, LayoutLeft, CudaSpace>::zeros_in(space.clone(), "l", [6, 9]).unwrap();
    deep_copy(&mut left, &host).unwrap();
    // Device Left -> device Right: staged down and up.
    let mut right = View2::<i64, LayoutRight, CudaSpace>::zeros_in(space, "r", [6, 9]).unwrap();
    deep_copy(&mut right, &left).unwrap();
    // Device Left -> host Left is contiguous: the memory must be column-major.
    let mut host_left = View2::<i64, LayoutLeft>::zeros("hl", [6, 9]).unwrap();
    deep_copy(&mut host_left, &left).unwrap();
    assert_eq!(host_left.to_vec(), host.to_vec());
    assert_eq!(host_left.as_slice().unwrap()[1], host[[1, 0]]);
    // Device Right -> host Left: a scatter on the host.
    let mut again = View2::<i64, LayoutLeft>::zeros("again", [6, 9]).unwrap();
    deep_copy(&mut again, &right).unwrap();
    assert_eq!(again.to_vec(), host.to_vec());
}

fn strided_device_subviews_copy_only_their_elements(cuda: &Cuda) {
    let mut dev =
        View2::<u32, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "m", [4, 5]).unwrap();
    let column = View1::<u32>::from_fn("c", 4, |i| 7 + i as u32).unwrap();
    deep_copy(&mut dev.subview_mut((ALL, 2)).unwrap(), &column).unwrap();
    let row = View1::<u32>::from_fn("r", 5, |j| 100 + j as u32).unwrap();
    deep_copy(&mut dev.subview_mut((3, ALL)).unwrap(), &row).unwrap();
    let expect: Vec<u32> = (0..4)
        .flat_map(|i| (0..5).map(move |j| (i, j)))
        .map(|(i, j)| match (i, j) {
            (3, j) => 100 + j as u32,
            (i, 2) => 7 + i as u32,
            _ => 0,
        })
        .collect();
    assert_eq!(host_values(&dev), expect);
    let mut out = View1::<u32>::zeros("out", 4).unwrap();
    deep_copy(&mut out, &dev.subview((ALL, 2)).unwrap()).unwrap();
    assert_eq!(out.to_vec(), vec![7, 8, 9, 102]);
}

fn shape_mismatch_writes_nothing(cuda: &Cuda) {
    let host = View2::<f32>::from_fn("src", [2, 3], |[i, j]| (i + j) as f32 + 1.0).unwrap();
    let mut dev =
        View2::<f32, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "dst", [3, 2]).unwrap();
    let e = deep_copy(&mut dev, &host).unwrap_err();
    assert_eq!(
        e,
        ViewError::ShapeMismatch {
            dst_label: "dst".into(),
            dst_extents: vec![3, 2],
            src_label: "src".into(),
            src_extents: vec![2, 3],
        }
    );
    assert_eq!(host_values(&dev), vec![0.0; 6]);
}

fn mirrors_of_device_views(cuda: &Cuda) {
    let host = View1::<u16>::from_fn("v", 300, |i| (3 * i) as u16).unwrap();
    let mut dev =
        View1::<u16, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "v", 300).unwrap();
    deep_copy(&mut dev, &host).unwrap();
    let plain = create_mirror_view(&dev).unwrap();
    assert!(!plain.is_same());
    assert_eq!(
        plain.as_view().to_vec(),
        vec![0; 300],
        "create_mirror_view does not copy"
    );
    let copied = create_mirror_view_and_copy(&dev).unwrap();
    assert!(!copied.is_same());
    assert_eq!(copied.as_view().label(), "v");
    assert_eq!(copied[299], 897);
    let mut m = create_mirror(&dev).unwrap();
    m.fill(5);
    deep_copy(&mut dev, &m).unwrap();
    assert_eq!(host_values(&dev), vec![5; 300]);
}

fn limits_and_fence(cuda: &Cuda) {
    let l = cuda.device().limits();
    assert_eq!(cuda.name(), "Cuda");
    assert_eq!(cuda.team_size_max(), l.max_threads_per_block as usize);
    assert!(cuda.team_size_recommended() <= cuda.team_size_max());
    assert_eq!(cuda.team_size_recommended() % l.warp_size as usize, 0);
    assert_eq!(cuda.vector_length_max(), l.warp_size as usize);
    // The drivers reserve one word per thread of the largest block, and
    // room for their static shared variables.
    assert_eq!(
        cuda.scratch_size_max(0),
        (l.max_shared_mem_bytes - 8 * l.max_threads_per_block) as usize - 4096
    );
    assert_eq!(cuda.scratch_size_max(1) as u64, l.global_mem_bytes);
    assert_eq!(cuda.scratch_size_max(2), 0);
    assert_eq!(
        cuda.concurrency(),
        (l.multiprocessor_count * l.max_threads_per_multiprocessor) as usize
    );
    cuda.fence();
}

/// Padding after `tag` (3 bytes) and after `flag` (7 bytes): 24 bytes in all.
#[derive(Clone, Copy, Debug, PartialEq, granule_views::Zeroable)]
#[bytemuck(crate = "granule_views::bytemuck")]
#[repr(C)]
struct Padded {
    tag: u8,
    count: u32,
    flag: bool,
    value: f64,
}

fn padded(i: usize) -> Padded {
    Padded {
        tag: (i % 251) as u8,
        count: 1000 * i as u32 + 7,
        flag: i.is_multiple_of(3),
        value: i as f64 * -0.5,
    }
}

/// Elements with padding cross every copy path. `from_fn` writes into
/// memory it did not zero, so the host padding is never initialized; the
/// copies must carry it as `MaybeUninit<u8>`, never as `u8`.
fn padded_elements_round_trip(cuda: &Cuda) {
    assert_eq!(std::mem::size_of::<(u8, u32)>(), 8);
    assert_eq!(std::mem::size_of::<Padded>(), 24);
    let space = cuda.memory_space();
    // Tuples, contiguous both ways and device to device.
    let pairs = View1::<(u8, u32)>::from_fn("pairs", 37, |i| (i as u8, 3 * i as u32)).unwrap();
    let mut d1 =
        View1::<(u8, u32), LayoutRight, CudaSpace>::zeros_in(space.clone(), "d1", 37).unwrap();
    deep_copy(&mut d1, &pairs).unwrap();
    let mut d2 =
        View1::<(u8, u32), LayoutRight, CudaSpace>::zeros_in(space.clone(), "d2", 37).unwrap();
    deep_copy(&mut d2, &d1).unwrap();
    let mut back = View1::<(u8, u32)>::from_fn("back", 37, |_| (0, 0)).unwrap();
    deep_copy(&mut back, &d2).unwrap();
    assert_eq!(back.to_vec(), pairs.to_vec());
    // Structs, through the mapped (staged) paths: host Right -> device
    // Left -> device Right -> host Left, and a strided device column.
    let host = View2::<Padded>::from_fn("h", [5, 7], |[i, j]| padded(10 * i + j)).unwrap();
    let mut left =
        View2::<Padded, LayoutLeft, CudaSpace>::zeros_in(space.clone(), "l", [5, 7]).unwrap();
    deep_copy(&mut left, &host).unwrap();
    let mut right = View2::<Padded, LayoutRight, CudaSpace>::zeros_in(space, "r", [5, 7]).unwrap();
    deep_copy(&mut right, &left).unwrap();
    let mut host_left = View2::<Padded, LayoutLeft>::from_fn("hl", [5, 7], |_| padded(0)).unwrap();
    deep_copy(&mut host_left, &right).unwrap();
    assert_eq!(host_left.to_vec(), host.to_vec());
    assert_eq!(host_values(&left), host.to_vec());
    let mut column = View1::<Padded>::from_fn("c", 5, |_| padded(0)).unwrap();
    deep_copy(&mut column, &right.subview((ALL, 3)).unwrap()).unwrap();
    assert_eq!(
        column.to_vec(),
        (0..5).map(|i| padded(10 * i + 3)).collect::<Vec<_>>()
    );
}

/// Every check above, on one space.
fn all_checks(cuda: &Cuda) {
    zeroed_views_of_rank_1_and_2(cuda);
    right_round_trip(cuda);
    left_round_trip_through_mapped_copies(cuda);
    strided_device_subviews_copy_only_their_elements(cuda);
    shape_mismatch_writes_nothing(cuda);
    mirrors_of_device_views(cuda);
    padded_elements_round_trip(cuda);
    limits_and_fence(cuda);
}

#[test]
fn zeroed_device_views() {
    zeroed_views_of_rank_1_and_2(&emulated());
}

#[test]
fn layout_right_round_trip() {
    right_round_trip(&emulated());
}

#[test]
fn layout_left_round_trip_with_mapped_copies() {
    left_round_trip_through_mapped_copies(&emulated());
}

#[test]
fn strided_subviews() {
    strided_device_subviews_copy_only_their_elements(&emulated());
}

#[test]
fn shape_mismatch_is_typed_and_writes_nothing() {
    shape_mismatch_writes_nothing(&emulated());
}

#[test]
fn mirrors() {
    mirrors_of_device_views(&emulated());
}

#[test]
fn padded_elements() {
    padded_elements_round_trip(&emulated());
}

#[test]
fn emulator_limits_and_fence() {
    let cuda = emulated();
    limits_and_fence(&cuda);
    assert_eq!(cuda.team_size_max(), 1024);
    assert_eq!(cuda.vector_length_max(), 32);
    // An H100's 227 KiB opt-in maximum less 8 KiB for a block of 1024
    // and 4 KiB for static shared variables.
    assert_eq!(EmuDevice::LIMITS.max_shared_mem_bytes, 227 * 1024);
    assert_eq!(cuda.scratch_size_max(0), 215 * 1024);
    assert_eq!(cuda.concurrency(), 132 * 2048);
}

#[test]
fn copies_between_device_instances_are_a_typed_error() {
    let (a, b) = (emulated(), emulated());
    let src = View1::<f64, LayoutRight, CudaSpace>::zeros_in(a.memory_space(), "src", 8).unwrap();
    let mut dst =
        View1::<f64, LayoutRight, CudaSpace>::zeros_in(b.memory_space(), "dst", 8).unwrap();
    let e = deep_copy(&mut dst, &src).unwrap_err();
    let ViewError::Copy { dst_label, reason } = &e else {
        panic!("expected a copy error, got {e:?}");
    };
    assert_eq!(dst_label, "dst");
    assert!(reason.contains("two device instances"), "{reason}");
    // Within one device, through a second handle of the same space, it works.
    let mut same =
        View1::<f64, LayoutRight, CudaSpace>::zeros_in(a.memory_space(), "s", 8).unwrap();
    deep_copy(&mut same, &src).unwrap();
}

#[test]
fn allocation_failure_names_the_bytes_and_the_device() {
    let cuda = emulated();
    let huge = usize::MAX / 16;
    let e = View1::<u8, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "huge", huge)
        .unwrap_err();
    let ViewError::Allocation {
        bytes,
        space,
        reason,
        ..
    } = &e
    else {
        panic!("expected an allocation error, got {e:?}");
    };
    assert_eq!((*bytes, *space), (huge, "Cuda"));
    assert!(
        reason.contains("emulator") && reason.contains(&huge.to_string()),
        "{reason}"
    );
}

#[test]
fn no_driver_is_a_typed_error_naming_the_emulator_switch() {
    match Cuda::new(0) {
        Ok(cuda) => eprintln!(
            "a GPU is present ({}): nothing to check",
            cuda.device().name()
        ),
        Err(e) => {
            assert!(matches!(e, DeviceError::Unavailable { .. }), "{e:?}");
            assert!(e.to_string().contains("GRANULE_CUDA=emulator"), "{e}");
        }
    }
}

#[test]
fn granule_cuda_selects_the_device() {
    assert_eq!(CudaSelection::parse(None), Ok(CudaSelection::Gpu(0)));
    assert_eq!(CudaSelection::parse(Some("")), Ok(CudaSelection::Gpu(0)));
    assert_eq!(CudaSelection::parse(Some("gpu")), Ok(CudaSelection::Gpu(0)));
    assert_eq!(
        CudaSelection::parse(Some("gpu:3")),
        Ok(CudaSelection::Gpu(3))
    );
    assert_eq!(
        CudaSelection::parse(Some(" emulator ")),
        Ok(CudaSelection::Emulator)
    );
    for bad in ["emu", "gpu:x", "cpu", "EMULATOR"] {
        let e = CudaSelection::parse(Some(bad)).unwrap_err();
        assert!(matches!(e, DeviceError::Unavailable { .. }));
        assert!(e.to_string().contains("GRANULE_CUDA=emulator"), "{e}");
    }
    let emu = Cuda::from_setting(Some("emulator")).unwrap();
    assert_eq!(emu.device().name(), "emulator");
    // Unset never falls back to the emulator: it is GPU 0 or an error.
    match Cuda::from_setting(None) {
        Ok(cuda) => assert_ne!(cuda.device().name(), "emulator"),
        Err(e) => assert!(e.to_string().contains("GRANULE_CUDA=emulator"), "{e}"),
    }
}

#[test]
fn live_gpu_space() {
    if let Some(cuda) = gpu("live_gpu_space") {
        all_checks(&cuda);
    }
}

#[test]
fn all_checks_on_one_emulated_space() {
    all_checks(&emulated());
}
