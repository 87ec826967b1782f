//! Entry points for the cargo-fuzz targets in `fuzz/`, kept in the library so that a stable
//! test can replay the committed corpus through the same code.

/// Parses `data` as ibnetdiscover text; when it parses, writes it back and checks that reading
/// the written text gives the same fabric.
///
/// # Panics
/// When the round trip does not give back an equal fabric: that is the bug the fuzzer hunts.
pub fn ibnetdiscover(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(fabric) = crate::ibnet::read_ibnetdiscover(text) {
        let written = crate::ibnet::write_ibnetdiscover(&fabric);
        let again = crate::ibnet::read_ibnetdiscover(&written);
        assert_eq!(again.as_ref(), Ok(&fabric), "round trip of:\n{written}");
    }
}
