//! The `udp_transfer` example's transport, run as two processes on
//! loopback (this test binary spawns itself as the sender), moves a buffer intact in both
//! receiver modes with 1 % of the datagrams dropped and 1 % reordered at each sending
//! socket, within its deadline.

use std::process::Command;
use std::time::Duration;

use rdma_window::Mode;

#[path = "../examples/udp_transfer.rs"]
#[expect(dead_code, reason = "the example's main and its argument parsing")]
mod udp_transfer;

/// Set in the child: it is the sender, with this spec.
const CHILD: &str = "RDMA_WINDOW_UDP_SENDER";
const NAME: &str = "moves_a_buffer_between_two_processes_over_loopback";

#[test]
fn moves_a_buffer_between_two_processes_over_loopback() {
    if let Ok(spec) = std::env::var(CHILD) {
        udp_transfer::sender_main(&spec).expect("the sender finishes");
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    for mode in [Mode::Paper, Mode::Improved] {
        let mut o = udp_transfer::Options::new(1 << 20, mode, 1e-2);
        o.deadline = Duration::from_secs(30);
        let r = udp_transfer::transfer(&o, |spec| {
            let mut c = Command::new(&exe);
            c.args([NAME, "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD, spec);
            c
        })
        .expect("the transfer completes");
        assert!(
            r.intact,
            "{mode:?}: the destination differs from the source"
        );
        let packets = (1u64 << 20).div_ceil(1400);
        assert!(r.data_sent >= packets, "{mode:?}: {r:?}");
        assert!(r.elapsed < o.deadline, "{mode:?}: {r:?}");
        if r.injected[0] > 0 {
            assert!(r.retransmits > 0, "{mode:?}: losses but no repair: {r:?}");
        }
    }
}
