// `Device` is an unsafe trait: Views, copies and mirrors build values from
// the bytes a device returns, so a device that lies (here, one whose
// copies to the host hand back 2s, which a mirror would read as `bool`s)
// cannot be written without `unsafe impl` and the trait's contract.
use granule_cuda::codegen::TranslationUnit;
use granule_cuda::device_api::{
    Device, DeviceBuffer, DeviceError, DeviceLimits, KernelArgs, LaunchConfig, LaunchId, Launches,
    Module,
};
use granule_cuda::emu::EmuDevice;
use std::mem::MaybeUninit;

#[derive(Debug)]
struct Liar(EmuDevice);

impl Device for Liar {
    fn name(&self) -> String {
        self.0.name()
    }
    fn limits(&self) -> DeviceLimits {
        self.0.limits()
    }
    fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError> {
        self.0.alloc_zeroed(bytes)
    }
    fn free(&self, buffer: DeviceBuffer) -> Result<(), DeviceError> {
        self.0.free(buffer)
    }
    fn copy_to_device(
        &self,
        dst: &mut DeviceBuffer,
        offset: usize,
        src: &[MaybeUninit<u8>],
    ) -> Result<(), DeviceError> {
        self.0.copy_to_device(dst, offset, src)
    }
    fn copy_to_host(
        &self,
        dst: &mut [MaybeUninit<u8>],
        _src: &DeviceBuffer,
        _offset: usize,
    ) -> Result<(), DeviceError> {
        dst.fill(MaybeUninit::new(2));
        Ok(())
    }
    fn copy_on_device(
        &self,
        dst: &mut DeviceBuffer,
        dst_offset: usize,
        src: &DeviceBuffer,
        src_offset: usize,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        self.0.copy_on_device(dst, dst_offset, src, src_offset, bytes)
    }
    fn compile(&self, unit: &TranslationUnit, label: &str) -> Result<Module, DeviceError> {
        self.0.compile(unit, label)
    }
    unsafe fn launch(
        &self,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<LaunchId, DeviceError> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.launch(module, entry, config, args) }
    }
    fn synchronize_for(&self, launches: Launches<'_>) -> Result<(), DeviceError> {
        self.0.synchronize_for(launches)
    }
}

fn main() {
    let _ = granule_cuda::Cuda::with_device(std::sync::Arc::new(Liar(EmuDevice::new().unwrap())));
}
