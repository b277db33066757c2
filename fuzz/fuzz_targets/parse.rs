//! Parser, printer and target checks on arbitrary input: no panic, no hang, every error
//! located inside the input, and whatever parses prints to text that parses again.
//!
//! `cargo +nightly fuzz run parse -- -dict=fuzz/parse.dict` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use syncopt_ir::{parse_file, print_module};
use syncopt_targets::Target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let lines = src.split('\n').count() as u32;
    for chunk in parse_file(src) {
        match chunk {
            Err(d) => {
                let loc = d.loc.expect("parse errors carry a location");
                assert!(loc.line >= 1 && loc.line <= lines, "line outside the input");
                let _ = d.render("fuzz.sk", src);
            }
            Ok(m) => {
                let printed = print_module(&m);
                for again in parse_file(&printed) {
                    assert!(again.is_ok(), "printed text does not parse:\n{printed}");
                }
                for &t in Target::ALL {
                    for k in &m.kernels {
                        for d in syncopt_targets::check::check_kernel(k, t) {
                            let _ = d.render("fuzz.sk", src);
                        }
                    }
                }
            }
        }
    }
});
