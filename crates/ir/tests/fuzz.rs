//! Hostile input: random bytes and mutated examples through the parser, the printer and
//! `targets::check::check_kernel`. Never a panic; every error carries a line:col inside the
//! input; whatever parses prints to text that parses again.
//!
//! 256 cases per property by default; `SYNCOPT_LONG=1` runs 20000.

use std::path::PathBuf;

use proptest::prelude::*;
use syncopt_ir::{parse_file, print_module, Diagnostic};
use syncopt_targets::Target;

fn cases() -> u32 {
    if std::env::var("SYNCOPT_LONG").is_ok_and(|v| v == "1") {
        20_000
    } else {
        256
    }
}

fn examples() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sk"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| std::fs::read_to_string(p).expect("readable"))
        .collect()
}

fn assert_loc_inside(d: &Diagnostic, src: &str) {
    let loc = d
        .loc
        .unwrap_or_else(|| panic!("diagnostic without a location: {}", d.message));
    let lines: Vec<&str> = src.split('\n').collect();
    assert!(
        loc.line >= 1 && (loc.line as usize) <= lines.len(),
        "line {} outside the {} lines of the input: {}",
        loc.line,
        lines.len(),
        d.message
    );
    let len = lines[loc.line as usize - 1].chars().count() as u32;
    assert!(
        loc.col >= 1 && loc.col <= len + 1,
        "column {} outside line {} ({len} chars): {}",
        loc.col,
        loc.line,
        d.message
    );
    for (nl, _) in &d.notes {
        if let Some(l) = nl {
            assert!((l.line as usize) <= lines.len());
        }
    }
    let _ = d.render("fuzz.sk", src);
}

/// Everything a command does before the passes, on one input.
fn exercise(src: &str) {
    for chunk in parse_file(src) {
        match chunk {
            Err(d) => assert_loc_inside(&d, src),
            Ok(m) => {
                let printed = print_module(&m);
                let again = parse_file(&printed);
                for c in &again {
                    if let Err(d) = c {
                        panic!(
                            "printed text does not parse: {}\n--- input\n{src}\n--- printed\n{printed}",
                            d.render("printed", &printed)
                        );
                    }
                }
                let target = m
                    .target
                    .as_deref()
                    .and_then(Target::from_name)
                    .unwrap_or(Target::Gfx950);
                for k in &m.kernels {
                    for d in syncopt_targets::check::check_kernel(k, target) {
                        if d.loc.is_some() {
                            assert_loc_inside(&d, src);
                        }
                    }
                    let _ = k.stmt_count();
                    k.walk(&mut |_, d| {
                        if let syncopt_ir::StmtKind::For(f) = &d.kind {
                            let _ = f.trips();
                        }
                    });
                }
            }
        }
    }
}

/// Pieces of `src`: runs of non-space and runs of space, so mutations act on tokens.
fn pieces(src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_space = false;
    for c in src.chars() {
        let sp = c.is_whitespace() || "()[]{},:=".contains(c);
        if !cur.is_empty() && (sp != cur_space || sp) {
            out.push(std::mem::take(&mut cur));
        }
        cur_space = sp;
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Number(usize, i64),
    Insert(usize, &'static str),
    Truncate(usize),
}

const INSERTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "%",
    "@",
    "\"",
    "-",
    "yield %A",
    "barrier",
    "for",
    "if",
    " mod ",
    "\n// -----\n",
    "%k",
    "0x",
    "99999999999999999999",
    "tid",
    "*",
    "\u{00e9}",
    "\t",
    "//",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (
            any::<usize>(),
            prop_oneof![
                Just(0i64),
                Just(-1),
                Just(i64::MAX),
                Just(i64::MIN + 1),
                -100i64..100_000
            ]
        )
            .prop_map(|(a, n)| Mutation::Number(a, n)),
        (any::<usize>(), 0..INSERTS.len()).prop_map(|(a, i)| Mutation::Insert(a, INSERTS[i])),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(src: &str, muts: &[Mutation]) -> String {
    let mut p = pieces(src);
    for m in muts {
        if p.is_empty() {
            break;
        }
        let n = p.len();
        match *m {
            Mutation::Delete(i) => {
                p.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let t = p[i % n].clone();
                p.insert(i % n, t);
            }
            Mutation::Swap(a, b) => p.swap(a % n, b % n),
            Mutation::Number(i, v) => {
                // Replace the next integer at or after i with v.
                if let Some(j) = (0..n)
                    .map(|k| (i + k) % n)
                    .find(|&j| p[j].chars().all(|c| c.is_ascii_digit()))
                {
                    p[j] = v.to_string();
                }
            }
            Mutation::Insert(i, s) => p.insert(i % (n + 1), s.to_string()),
            Mutation::Truncate(i) => p.truncate(i % n),
        }
    }
    p.concat()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup_never_panics(toks in proptest::collection::vec(0..40usize, 0..80)) {
        const VOCAB: &[&str] = &[
            "target", "gfx950", "ascend910b", "kernel", "@k", "(", ")", "{", "}", "[", "]", ",",
            "=", ":", "%A", "%n", "%i", "buffer", "workgroup", "ub", "64", "0", "-1", "view",
            "slot", "mod", "op", "\"x\"", "read", "write", "atomic", "for", "to", "iter", "yield",
            "if", "uniform", "tid", "barrier", "\n",
        ];
        let src: Vec<&str> = toks.iter().map(|&i| VOCAB[i % VOCAB.len()]).collect();
        exercise(&src.join(" "));
    }

    #[test]
    fn mutated_examples_never_panic(
        which in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..5),
    ) {
        let ex = examples();
        let src = mutate(&ex[which % ex.len()], &muts);
        exercise(&src);
    }
}

#[test]
fn unmutated_examples_exercise_cleanly() {
    for src in examples() {
        exercise(&src);
        for chunk in parse_file(&src) {
            let m = chunk.expect("examples parse");
            let t = Target::from_name(m.target.as_deref().unwrap()).unwrap();
            for k in &m.kernels {
                assert!(syncopt_targets::check::check_kernel(k, t).is_empty());
            }
        }
    }
}
