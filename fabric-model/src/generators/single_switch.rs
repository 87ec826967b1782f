use super::invalid;
use crate::{DEFAULT_LATENCY, Error, Fabric, FabricBuilder, LinkRate, PortNo};

/// One non-blocking switch with `terminals` terminals, each on its own port (terminal `i` on
/// port `i + 1`), every link of `rate`: the "big switch" model of flow schedulers, where only
/// the terminals' links (each direction at `rate`) limit a flow.
///
/// # Errors
/// [`Error::InvalidParameter`] when `terminals` is zero or above 65,534.
///
/// # Complexity
/// O(terminals).
///
/// ```
/// use fabric_model::{generators, LinkRate};
///
/// let f = generators::single_switch(150, LinkRate::EDR_4X)?;
/// assert_eq!((f.switch_count(), f.terminal_count(), f.link_count()), (1, 150, 150));
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn single_switch(terminals: u32, rate: LinkRate) -> Result<Fabric, Error> {
    const G: &str = "single_switch";
    let ports = u16::try_from(terminals)
        .ok()
        .filter(|&p| p > 0 && p < u16::MAX)
        .ok_or_else(|| invalid(G, "terminals", "must be in 1..=65534"))?;
    let mut b = FabricBuilder::with_capacity(
        usize::from(ports) + 1,
        2 * usize::from(ports),
        usize::from(ports),
    );
    let s = b.add_switch(ports)?;
    b.set_description(s, "single switch")?;
    for p in 1..=ports {
        let t = b.add_terminal(1)?;
        b.link_with(t, PortNo::new(1), s, PortNo::new(p), rate, DEFAULT_LATENCY)?;
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_terminal_hangs_off_its_own_port() {
        let f = single_switch(5, LinkRate::EDR_4X).unwrap();
        let s = f.switches()[0];
        for (i, &t) in f.terminals().iter().enumerate() {
            assert_eq!(f.switch_of(t), Some((s, PortNo::new(i as u16 + 1))));
        }
        assert!(matches!(
            single_switch(0, LinkRate::EDR_4X),
            Err(Error::InvalidParameter {
                parameter: "terminals",
                ..
            })
        ));
        assert!(single_switch(65_535, LinkRate::EDR_4X).is_err());
    }
}
