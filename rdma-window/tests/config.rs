//! Issue 19, defect 4: every zero, inverted or overflowing interval (and every out-of-range
//! count) is refused with an error naming the field.

use fabric_model::Nanos;
use rdma_window::config::MAX_INTERVAL;
use rdma_window::{Error, Mode, Receiver, ReceiverConfig, Sender, SenderConfig};

fn rx_err(cfg: ReceiverConfig) -> Option<(&'static str, &'static str)> {
    match Receiver::<2>::new(cfg) {
        Ok(_) => None,
        Err(Error::Config { field, reason }) => Some((field, reason)),
        Err(other) => panic!("not a configuration error: {other}"),
    }
}

fn tx_err(cfg: SenderConfig) -> Option<(&'static str, &'static str)> {
    match Sender::new(1, cfg) {
        Ok(_) => None,
        Err(Error::Config { field, reason }) => Some((field, reason)),
        Err(other) => panic!("not a configuration error: {other}"),
    }
}

const ZERO: &str = "must be above zero";
const BIG: &str = "must be at most MAX_INTERVAL (2^62 ns)";
const TOO_BIG: Nanos = Nanos::new(MAX_INTERVAL.get() + 1);

#[test]
fn defaults_are_valid() {
    assert_eq!(ReceiverConfig::default().validate(), Ok(()));
    assert_eq!(SenderConfig::default().validate(), Ok(()));
    for mode in [Mode::Paper, Mode::Improved] {
        assert_eq!(rx_err(ReceiverConfig::default().with_mode(mode)), None);
    }
}

#[test]
fn receiver_intervals_and_counts_are_checked() {
    let d = ReceiverConfig::default();
    let cases = [
        (
            d.with_capacity(0),
            Some(("capacity", "must be 1 ..= 65536")),
        ),
        (
            d.with_capacity((1 << 16) + 1),
            Some(("capacity", "must be 1 ..= 65536")),
        ),
        (d.with_capacity(1 << 16), None),
        (
            d.with_ack_stride(0),
            Some(("ack_stride", "must be 1 ..= MAX_PACKETS")),
        ),
        (
            d.with_resend_timeout(Nanos::ZERO),
            Some(("resend_timeout", ZERO)),
        ),
        (
            d.with_resend_timeout(TOO_BIG),
            Some(("resend_timeout", BIG)),
        ),
        (d.with_resend_timeout(MAX_INTERVAL), None),
        // Improved mode's retry of zero left a timer due at `now` for ever.
        (
            d.with_mode(Mode::Improved).with_retry_interval(Nanos::ZERO),
            Some(("retry_interval", ZERO)),
        ),
        (
            d.with_retry_interval(Nanos::MAX),
            Some(("retry_interval", BIG)),
        ),
        // A tolerance of zero is meant (a network that keeps order) ...
        (
            d.with_mode(Mode::Improved)
                .with_reorder_tolerance(Nanos::ZERO),
            None,
        ),
        // ... an overflowing one is not.
        (
            d.with_reorder_tolerance(TOO_BIG),
            Some(("reorder_tolerance", BIG)),
        ),
    ];
    for (cfg, want) in cases {
        assert_eq!(rx_err(cfg), want, "{cfg:?}");
    }
}

#[test]
fn sender_intervals_and_counts_are_checked() {
    let d = SenderConfig::default();
    let cases = [
        (
            d.with_capacity(0),
            Some(("capacity", "must be 1 ..= 65536")),
        ),
        (
            d.with_window(0),
            Some(("window", "must be 1 ..= MAX_PACKETS")),
        ),
        (
            d.with_window(u32::MAX),
            Some(("window", "must be 1 ..= MAX_PACKETS")),
        ),
        // A request timeout of zero left the request timer due at `now` for ever.
        (d.with_req_timeout(Nanos::ZERO), Some(("req_timeout", ZERO))),
        (d.with_req_timeout(TOO_BIG), Some(("req_timeout", BIG))),
        (
            d.with_busy_backoff(Nanos::ZERO),
            Some(("busy_backoff", ZERO)),
        ),
        (d.with_max_backoff(Nanos::ZERO), Some(("max_backoff", ZERO))),
        (d.with_max_backoff(TOO_BIG), Some(("max_backoff", BIG))),
        (
            d.with_probe_timeout(Nanos::ZERO),
            Some(("probe_timeout", ZERO)),
        ),
        (
            d.with_probe_timeout(Nanos::MAX),
            Some(("probe_timeout", BIG)),
        ),
        (d.with_speculate_delay(Nanos::ZERO), None),
        (
            d.with_max_requests(0),
            Some(("max_requests", "must be at least 1")),
        ),
        (d.with_max_requests(u32::MAX), None),
        (
            d.with_request_deadline(Nanos::ZERO),
            Some(("request_deadline", ZERO)),
        ),
        (
            d.with_request_deadline(TOO_BIG),
            Some(("request_deadline", BIG)),
        ),
        (
            d.with_speculate_delay(TOO_BIG),
            Some(("speculate_delay", BIG)),
        ),
        // Inverted: the first back-off above the largest.
        (
            d.with_busy_backoff(Nanos::from_millis(2))
                .with_max_backoff(Nanos::from_millis(1)),
            Some(("busy_backoff", "must be at most max_backoff")),
        ),
        (
            d.with_busy_backoff(Nanos::from_millis(1))
                .with_max_backoff(Nanos::from_millis(1)),
            None,
        ),
    ];
    for (cfg, want) in cases {
        assert_eq!(tx_err(cfg), want, "{cfg:?}");
    }
}

#[test]
fn the_error_names_the_field() {
    let e = Sender::new(1, SenderConfig::default().with_req_timeout(Nanos::ZERO)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid configuration: req_timeout must be above zero"
    );
}
