// A sent message is the elements' bytes: a tuple with padding would send
// uninitialised ones, through `send` or through an `Outgoing` handed to
// rsmpi's own sends.
use granule_core::Serial;
use granule_mpi::Outgoing;
use granule_views::View1;

fn main() {
    let pairs = View1::<(u8, u32)>::zeros("pairs", 4).unwrap();
    let out = Outgoing::of(&Serial, &pairs).unwrap();
    let _bytes = out.as_slice();
}
