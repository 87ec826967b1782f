//! Every zero, inverted or overflowing interval, every out-of-range count and every field
//! that sizes an allocation past its documented bound is refused with an error naming the
//! field, before anything is allocated.

use fabric_model::Nanos;
use rdma_window::config::{MAX_COMPLETIONS_KEPT, MAX_CONTEXTS, MAX_INTERVAL, MAX_WINDOW};
use rdma_window::receiver::MAX_PACKETS;
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
const CAP: &str = "must be 1 ..= MAX_CONTEXTS (65536)";
const WIN: &str = "must be 1 ..= MAX_WINDOW (4096)";
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
        (d.with_capacity(0), Some(("capacity", CAP))),
        (d.with_capacity((1 << 16) + 1), Some(("capacity", CAP))),
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
        (d.with_capacity(0), Some(("capacity", CAP))),
        (d.with_window(0), Some(("window", WIN))),
        (d.with_window(u32::MAX), Some(("window", WIN))),
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
        (
            d.with_busy_deadline(Nanos::ZERO),
            Some(("busy_deadline", ZERO)),
        ),
        (d.with_busy_deadline(TOO_BIG), Some(("busy_deadline", BIG))),
        (d.with_busy_deadline(MAX_INTERVAL), None),
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

/// `completions_kept` sizes the receiver's memory of completions, allocated by
/// `Receiver::new`: `usize::MAX` used to get past validation and panic there with
/// "capacity overflow" (2^40 entries tried, 13 TB). Now it is refused by name.
#[test]
fn completions_kept_past_its_bound_is_refused_before_allocating() {
    let d = ReceiverConfig::default();
    let refused = Some((
        "completions_kept",
        "must be at most MAX_COMPLETIONS_KEPT (65536)",
    ));
    assert_eq!(rx_err(d.with_completions_kept(usize::MAX)), refused);
    assert_eq!(
        rx_err(d.with_completions_kept(MAX_COMPLETIONS_KEPT + 1)),
        refused
    );
    assert_eq!(rx_err(d.with_completions_kept(MAX_COMPLETIONS_KEPT)), None);
    assert_eq!(rx_err(d.with_completions_kept(0)), None);
    assert_eq!(
        d.with_completions_kept(usize::MAX).validate(),
        Err(Error::Config {
            field: "completions_kept",
            reason: "must be at most MAX_COMPLETIONS_KEPT (65536)"
        })
    );
}

/// `window` sizes each transfer's re-send queue, allocated by `Sender::start`: a window of
/// `MAX_PACKETS` used to pass validation and then take 4 GiB per transfer. Now the bound is
/// the widest receiver's W.
#[test]
fn a_sender_window_past_the_widest_receiver_is_refused() {
    let d = SenderConfig::default();
    assert_eq!(tx_err(d.with_window(MAX_PACKETS)), Some(("window", WIN)));
    assert_eq!(tx_err(d.with_window(MAX_WINDOW + 1)), Some(("window", WIN)));
    assert_eq!(tx_err(d.with_window(MAX_WINDOW)), None);
    // The widest receiver (WORDS = 64) has exactly that W.
    assert_eq!(Receiver::<64>::W, MAX_WINDOW);
    assert!(Receiver::<64>::new(ReceiverConfig::default()).is_ok());
}

#[test]
fn context_tables_are_bounded_by_the_context_id() {
    assert_eq!(MAX_CONTEXTS, usize::from(u16::MAX) + 1);
    assert_eq!(
        rx_err(ReceiverConfig::default().with_capacity(MAX_CONTEXTS)),
        None
    );
    assert_eq!(
        tx_err(SenderConfig::default().with_capacity(MAX_CONTEXTS + 1)),
        Some(("capacity", CAP))
    );
    assert_eq!(
        tx_err(SenderConfig::default().with_capacity(usize::MAX)),
        Some(("capacity", CAP))
    );
}
