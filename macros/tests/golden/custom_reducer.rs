// A custom reducer over a `#[device] struct`: the struct becomes a C++
// struct, `init`/`join`/`finalize` the static members of the reducer's
// struct, and untyped float literals take the f32 fields' type.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Stats {
    sum: f32,
    sum_sq: f32,
    n: u32,
    negative: bool,
}

#[derive(Clone, Copy)]
struct StatsOf;

#[device]
impl Reducer<Stats> for StatsOf {
    fn init(&self) -> Stats {
        Stats {
            sum: 0.0,
            sum_sq: 0.0,
            n: 0,
            negative: false,
        }
    }
    fn join(&self, dst: &mut Stats, src: &Stats) {
        dst.sum += src.sum;
        dst.sum_sq += src.sum_sq;
        dst.n += src.n;
        dst.negative = dst.negative || src.negative;
    }
    fn finalize(&self, v: &mut Stats) {
        if v.n > 0 {
            v.sum /= v.n as f32;
            v.sum_sq = v.sum_sq / v.n as f32 - v.sum * v.sum;
        }
    }
}

#[kernel(reduce)]
fn stats(i: usize, x: &View1<f32>, acc: &mut Stats) {
    let v = x[i] * 0.5;
    acc.sum += v;
    acc.sum_sq += v * v + 0.0 * acc.sum;
    acc.n += 1;
    acc.negative = acc.negative || v < 0.0;
}
