//! DualView: syncs copy exactly when the other side was modified, and
//! only where the sides are separate allocations (none on host spaces);
//! the copies are counted through the profiling hooks' deep-copy events.
//! Writing one side while the other holds unsynced changes is refused on
//! every space.

use granule::profiling::{DeepCopyInfo, ProfilingHooks};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts the reported copies into or out of Views of one label (tests
/// run side by side, so each counts its own DualView's copies only).
pub struct CopyCounter {
    pub label: &'static str,
    pub to_host: AtomicUsize,
    pub to_device: AtomicUsize,
    pub bytes: AtomicUsize,
}

impl CopyCounter {
    pub fn new(label: &'static str) -> Self {
        CopyCounter {
            label,
            to_host: AtomicUsize::new(0),
            to_device: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
        }
    }

    /// (copies to the host, copies to the device).
    pub fn counts(&self) -> (usize, usize) {
        (
            self.to_host.load(Ordering::SeqCst),
            self.to_device.load(Ordering::SeqCst),
        )
    }
}

impl ProfilingHooks for CopyCounter {
    fn begin_deep_copy(&self, c: &DeepCopyInfo<'_>) {
        if c.dst_label != self.label || c.src_label != self.label {
            return;
        }
        let which = if c.dst_space == "Host" {
            &self.to_host
        } else {
            &self.to_device
        };
        which.fetch_add(1, Ordering::SeqCst);
        self.bytes.fetch_add(c.bytes, Ordering::SeqCst);
    }
}

macro_rules! dual_view_tests {
    () => {
        mod dual_view {
            use super::*;
            use crate::container_kernels::*;
            use crate::dual_view::CopyCounter;
            use granule::containers::{DualView, DualViewError, Side};
            use granule::profiling;
            use std::sync::Arc;

            /// `f64` DualViews of rank 1, their device side in the space's memory.
            type Dv<M> = DualView<f64, 1, LayoutRight, M>;

            #[test]
            fn syncs_copy_exactly_when_the_other_side_was_modified() {
                const LABEL: &str = concat!(module_path!(), "::copies");
                let s = space();
                let counter = Arc::new(CopyCounter::new(LABEL));
                let id = profiling::register(counter.clone());
                let n = 37;
                let mut dv = Dv::<_>::zeros_on(&s, LABEL, n).unwrap();
                let separate = !dv.is_same_allocation();
                let copies = |k: usize| if separate { k } else { 0 };

                // Nothing modified: no sync copies.
                assert!(!dv.need_sync_host() && !dv.need_sync_device());
                assert!(!dv.sync_host().unwrap());
                assert!(!dv.sync_device().unwrap());
                assert_eq!(counter.counts(), (0, 0));

                // Host writes: one copy to the device, then none.
                dv.view_host_mut()
                    .unwrap()
                    .for_each_mut(|[i], x| *x = i as f64);
                assert!(dv.need_sync_device() && !dv.need_sync_host());
                assert!(!dv.sync_host().unwrap(), "the device side has nothing new");
                assert_eq!(dv.sync_device().unwrap(), separate);
                assert!(!dv.sync_device().unwrap());
                assert_eq!(counter.counts(), (0, copies(1)));

                // A kernel writes the device side: one copy back, then none.
                parallel_for(
                    "dv_twice",
                    RangePolicy::new(&s, 0..n),
                    dv.view_device_mut().unwrap(),
                    double_in_place(),
                );
                assert!(dv.need_sync_host());
                assert_eq!(dv.sync_host().unwrap(), separate);
                assert!(!dv.sync_host().unwrap());
                assert!(!dv.sync_device().unwrap());
                assert_eq!(counter.counts(), (copies(1), copies(1)));
                let want: Vec<f64> = (0..n).map(|i| 2.0 * i as f64).collect();
                assert_eq!(dv.view_host().to_vec(), want);

                // Several device writes between syncs still copy once.
                for _ in 0..3 {
                    parallel_for(
                        "dv_twice_again",
                        RangePolicy::new(&s, 0..n),
                        dv.view_device_mut().unwrap(),
                        double_in_place(),
                    );
                }
                dv.sync_host().unwrap();
                assert_eq!(counter.counts(), (copies(2), copies(1)));
                assert_eq!(dv.view_host()[5], 80.0);
                assert!(profiling::unregister(id));
                let bytes = counter.bytes.load(std::sync::atomic::Ordering::SeqCst);
                assert_eq!(bytes, copies(3) * n * std::mem::size_of::<f64>());
            }

            #[test]
            fn device_reads_what_the_host_wrote_after_sync_device() {
                let s = space();
                let n = 64;
                let mut dv = Dv::<_>::zeros_on(&s, "dv_read", n).unwrap();
                dv.view_host_mut().unwrap().fill(0.5);
                dv.sync_device().unwrap();
                let total: f64 = parallel_reduce(
                    "dv_sum",
                    RangePolicy::new(&s, 0..n),
                    Sum,
                    sum_x(dv.view_device()),
                );
                assert_eq!(total, 32.0);
            }

            #[test]
            fn writing_a_side_behind_the_other_is_refused() {
                let s = space();
                let mut dv = Dv::<_>::zeros_on(&s, "dv_conflict", 4).unwrap();
                dv.view_host_mut().unwrap().fill(1.0);
                let e = dv.view_device_mut().unwrap_err();
                assert_eq!(
                    e,
                    DualViewError::ConcurrentModification {
                        label: "dv_conflict".into(),
                        side: Side::Device
                    }
                );
                assert!(e.to_string().contains("sync_device()"), "{e}");
                // Nothing was lost: the host's values reach the device.
                dv.sync_device().unwrap();
                dv.view_device_mut().unwrap();
                assert_eq!(
                    dv.modify_host().unwrap_err(),
                    DualViewError::ConcurrentModification {
                        label: "dv_conflict".into(),
                        side: Side::Host
                    }
                );
                dv.sync_host().unwrap();
                assert_eq!(dv.view_host().to_vec(), [1.0; 4]);
            }

            #[test]
            fn resize_keeps_the_overlap_and_realloc_discards() {
                let s = space();
                let mut dv = Dv::<_>::zeros_on(&s, "dv_resize", 6).unwrap();
                dv.view_host_mut()
                    .unwrap()
                    .for_each_mut(|[i], x| *x = i as f64 + 1.0);
                dv.sync_device().unwrap();
                parallel_for(
                    "dv_resize_twice",
                    RangePolicy::new(&s, 0..6),
                    dv.view_device_mut().unwrap(),
                    double_in_place(),
                );
                dv.resize(8).unwrap();
                assert_eq!(dv.extents(), [8]);
                assert_eq!(
                    dv.view_host().to_vec(),
                    [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 0.0, 0.0]
                );
                assert!(dv.need_sync_device());
                dv.sync_device().unwrap();
                let total: f64 = parallel_reduce(
                    "dv_resize_sum",
                    RangePolicy::new(&s, 0..8),
                    Sum,
                    sum_x(dv.view_device()),
                );
                assert_eq!(total, 42.0);
                dv.resize(3).unwrap();
                assert_eq!(dv.view_host().to_vec(), [2.0, 4.0, 6.0]);
                dv.realloc(5).unwrap();
                assert_eq!(dv.view_host().to_vec(), [0.0; 5]);
                assert!(!dv.need_sync_device() && !dv.need_sync_host());
                assert_eq!(dv.label(), "dv_resize");
            }

            #[test]
            fn sides_of_different_extents_are_a_typed_error() {
                let s = space();
                let device =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "dv_d", 3).unwrap();
                let host = View1::<f64>::zeros("dv_h", 4).unwrap();
                let e = Dv::<_>::from_views(device, host).unwrap_err();
                assert_eq!(
                    e,
                    DualViewError::ExtentsMismatch {
                        label: "dv_d".into(),
                        device: vec![3],
                        host: vec![4]
                    }
                );
            }
        }
    };
}
