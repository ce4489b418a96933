// Writing needs exclusive access: a shared borrow of a View is read-only.
use granule_views::View1;

fn bump(v: &View1<f64>) {
    v[0] += 1.0;
}

fn main() {
    let v = View1::<f64>::zeros("v", 1).unwrap();
    bump(&v);
}
