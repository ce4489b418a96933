//! Starting a test program under mpirun, from itself.
#![allow(dead_code)] // each test program uses part of it

use mpi::topology::SimpleCommunicator;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// The longest a test job may take before it counts as hung.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// The result of a test body on one rank.
pub type Outcome = Result<(), Box<dyn std::error::Error>>;

/// Whether this process is a rank of an mpirun job.
pub fn launched_by_mpirun() -> bool {
    std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() || std::env::var_os("PMI_RANK").is_some()
}

/// Runs this program as a job of `ranks` ranks; its exit status (None
/// when it outlived `deadline` and was killed) and how long it took.
pub fn launch(ranks: usize, deadline: Duration) -> (Option<ExitStatus>, Duration) {
    launch_with(ranks, deadline, &[])
}

/// [`launch`] with extra environment variables for the ranks.
pub fn launch_with(
    ranks: usize,
    deadline: Duration,
    env: &[(&str, &str)],
) -> (Option<ExitStatus>, Duration) {
    let exe = std::env::current_exe().expect("the test program's path");
    let start = Instant::now();
    // The two variables are mpirun's documented switch for running as root
    // (CI containers do); they change nothing for other users.
    let mut child = Command::new("mpirun")
        .args(["--oversubscribe", "-n", &ranks.to_string()])
        .arg(exe)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .envs(env.iter().copied())
        .spawn()
        .expect("mpirun not found: install OpenMPI (apt-get install openmpi-bin libopenmpi-dev)");
    loop {
        if let Some(status) = child.try_wait().expect("waiting for mpirun") {
            return (Some(status), start.elapsed());
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return (None, start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The main of a test program: under mpirun, runs `body` on this rank;
/// started directly, runs itself on 1 and on 2 ranks and fails unless
/// both jobs succeed.
pub fn main_for(name: &str, body: fn(&SimpleCommunicator) -> Outcome) {
    if launched_by_mpirun() {
        granule_mpi::run(|world| body(world).map_err(|e| e.to_string()));
        return;
    }
    for ranks in [1, 2] {
        let (status, took) = launch(ranks, DEADLINE);
        match status {
            Some(s) if s.success() => println!("{name}: {ranks} rank(s) passed in {took:?}"),
            Some(s) => panic!("{name}: the {ranks}-rank job failed: {s}"),
            None => panic!("{name}: the {ranks}-rank job hung past {DEADLINE:?}"),
        }
    }
}
