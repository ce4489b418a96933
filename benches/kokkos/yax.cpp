// yᵀAx with Kokkos's OpenMP backend, the peer of benches/yax.rs: the same
// matrix, vectors and loops (a RangePolicy over the rows with the columns
// summed inside; a TeamPolicy with the columns split among a team's
// threads), so `scripts/bench-kokkos-yax` can put the two side by side.
// Prints one line per policy: `kokkos_<policy> <side> <median ms> <min ms>`.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Matrix = Kokkos::View<double**, Kokkos::LayoutRight>;
using Vector = Kokkos::View<double*>;

// The values of benches/yax.rs: small integers, so every order of summation
// gives the same exact sum and a wrong loop is caught bitwise.
double expected(int n, int m) {
  double sum = 0;
  for (int j = 0; j < n; ++j) {
    double row = 0;
    for (int i = 0; i < m; ++i) row += double((i + 2 * j) % 3 + 1) * double(i % 7 + 1);
    sum += double(j % 5 + 1) * row;
  }
  return sum;
}

double range_policy(const Vector& y, const Matrix& a, const Vector& x) {
  const int m = int(x.extent(0));
  double result = 0;
  Kokkos::parallel_reduce(
      "yAx range", Kokkos::RangePolicy<>(0, int(y.extent(0))),
      KOKKOS_LAMBDA(int j, double& acc) {
        double row = 0;
        for (int i = 0; i < m; ++i) row += a(j, i) * x(i);
        acc += y(j) * row;
      },
      result);
  return result;
}

double team_policy(const Vector& y, const Matrix& a, const Vector& x) {
  using Member = Kokkos::TeamPolicy<>::member_type;
  const int m = int(x.extent(0));
  double result = 0;
  Kokkos::parallel_reduce(
      "yAx team", Kokkos::TeamPolicy<>(int(y.extent(0)), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& t, double& acc) {
        const int j = t.league_rank();
        double row = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(t, m), [&](int i, double& s) { s += a(j, i) * x(i); }, row);
        Kokkos::single(Kokkos::PerTeam(t), [&]() { acc += y(j) * row; });
      },
      result);
  return result;
}

template <class F>
void time_it(const char* name, int side, int repeats, double want, F run) {
  std::vector<double> ms;
  for (int r = 0; r < repeats + 1; ++r) {
    auto start = std::chrono::steady_clock::now();
    double got = run();
    Kokkos::fence();
    auto stop = std::chrono::steady_clock::now();
    if (got != want) {
      std::fprintf(stderr, "%s %d: got %.17g, want %.17g\n", name, side, got, want);
      std::exit(1);
    }
    // The first run pays the thread pool's and the pages' first touch.
    if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("kokkos_%s %d %.4f %.4f\n", name, side, ms[ms.size() / 2], ms.front());
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 21;
    for (int side : {1024, 8192}) {
      Vector y("y", side), x("x", side);
      Matrix a("A", side, side);
      Kokkos::parallel_for(
          "init", Kokkos::RangePolicy<>(0, side), KOKKOS_LAMBDA(int j) {
            y(j) = double(j % 5 + 1);
            x(j) = double(j % 7 + 1);
            for (int i = 0; i < side; ++i) a(j, i) = double((i + 2 * j) % 3 + 1);
          });
      Kokkos::fence();
      const double want = expected(side, side);
      time_it("range_policy", side, repeats, want, [&] { return range_policy(y, a, x); });
      time_it("team_policy", side, repeats, want, [&] { return team_policy(y, a, x); });
    }
  }
  Kokkos::finalize();
  return 0;
}
