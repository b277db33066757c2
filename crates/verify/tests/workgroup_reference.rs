//! The workgroup verifier against an explicit reference on random straight-line kernels and
//! single loops with an unknown trip count (gfx942 and gfx1200): for every pair of conflicting accesses, the reference decides
//! "ordered" straight from semantics.md 4.1 (some barrier arrival between them after which the
//! first has completed, via a fencing barrier or an LDS wait before the arrival), and the
//! verifier must report exactly the unordered pairs.

use std::collections::BTreeSet;

use syncopt_targets::Target;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[derive(Clone, Debug)]
enum Stmt {
    /// (buffer, quarter or None for whole, kind 0 read 1 write 2 atomic)
    Op(usize, Option<u64>, u8),
    /// Fencing arrival + wait.
    Bar,
    /// Execution-only arrival + wait.
    Exec,
    /// LDS counter wait to zero.
    LdsWait,
}

fn render(stmts: &[Stmt], split: bool, looped: bool) -> (String, Vec<u32>) {
    let target = if split { "gfx1200" } else { "gfx942" };
    let mut s = format!(
        "target {target}\n\nkernel @k(%n) waves 4 {{\n  %B0 = buffer workgroup 4096\n  %B1 = buffer workgroup 4096\n"
    );
    let mut lines = Vec::new();
    let mut line = 5;
    if looped {
        s += "  for %i = 0 to %n {\n";
        line += 1;
    }
    for st in stmts {
        line += 1;
        lines.push(line);
        match st {
            Stmt::Op(b, q, k) => {
                let kind = ["read", "write", "atomic"][*k as usize];
                let sel = q.map_or(String::new(), |q| {
                    format!("[{}:{}]", q * 1024, q * 1024 + 1024)
                });
                s += &format!("  op \"o\" {kind} %B{b}{sel}\n");
            }
            Stmt::Bar if split => {
                s += "  barrier.signal -1\n  barrier.wait -1\n";
                line += 1;
            }
            Stmt::Bar => s += "  barrier\n",
            Stmt::Exec if split => {
                // No execution-only split form: an LDS-less arrival is a signal after no wait,
                // which still fences; use the fencing pair, and mark it so in the reference.
                s += "  barrier.signal -1\n  barrier.wait -1\n";
                line += 1;
            }
            Stmt::Exec => s += "  barrier exec\n",
            Stmt::LdsWait if split => s += "  wait dscnt(0)\n",
            Stmt::LdsWait => s += "  wait lgkmcnt(0)\n",
        }
    }
    if looped {
        s += "  }\n";
    }
    s += "}\n";
    (s, lines)
}

fn reference(stmts: &[Stmt], split: bool, looped: bool) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    for j in 0..stmts.len() {
        let Stmt::Op(bj, qj, kj) = stmts[j] else {
            continue;
        };
        let upto = if looped { stmts.len() } else { j };
        for i in 0..upto {
            let Stmt::Op(bi, qi, ki) = stmts[i] else {
                continue;
            };
            if bi != bj {
                continue;
            }
            if let (Some(a), Some(b)) = (qi, qj) {
                if a != b {
                    continue;
                }
            }
            if ki == 0 && kj == 0 || ki == 2 && kj == 2 {
                continue;
            }
            // Ordered iff some arrival between them finds i completed.
            let mut completed = false;
            let mut ordered = false;
            // In one iteration when i < j, else from i to the end, around the back edge, to j.
            let between: Vec<&Stmt> = if i < j {
                stmts[i + 1..j].iter().collect()
            } else {
                stmts[i + 1..].iter().chain(stmts[..j].iter()).collect()
            };
            for st in between {
                match st {
                    Stmt::LdsWait => completed = true,
                    Stmt::Bar => {
                        ordered = true;
                    }
                    Stmt::Exec => {
                        if completed || split {
                            ordered = true;
                        }
                    }
                    Stmt::Op(..) => {}
                }
            }
            if !ordered {
                out.insert((i, j));
            }
        }
    }
    out
}

#[test]
fn straight_line_and_loop_bodies_match_reference() {
    let mut rng = Lcg(12345);
    let mut races = 0;
    // SYNCOPT_LONG=1: a longer campaign.
    let cases = if std::env::var("SYNCOPT_LONG").is_ok() {
        60_000
    } else {
        800
    };
    for case in 0..cases {
        let split = case % 2 == 1;
        let looped = case % 4 >= 2;
        let n = 3 + rng.next(10) as usize;
        let stmts: Vec<Stmt> = (0..n)
            .map(|_| match rng.next(10) {
                0 => Stmt::Bar,
                1 => Stmt::Exec,
                2 => Stmt::LdsWait,
                _ => Stmt::Op(
                    rng.next(2) as usize,
                    if rng.next(2) == 0 {
                        None
                    } else {
                        Some(rng.next(2))
                    },
                    rng.next(3) as u8,
                ),
            })
            .collect();
        let (src, lines) = render(&stmts, split, looped);
        let file = syncopt_ir::parse(&src).expect("parses");
        let t = if split {
            Target::Gfx1200
        } else {
            Target::Gfx942
        };
        let rep = syncopt_verify::verify(&file.chunks[0].kernels[0], t);
        let line_to_idx = |l: u32| lines.iter().position(|&x| x == l).expect("op line");
        let mut got = BTreeSet::new();
        for d in &rep.diagnostics {
            assert!(d.message.starts_with("race"), "{src}\n{d:?}");
            let y = line_to_idx(d.loc.expect("loc").line);
            let x = line_to_idx(d.notes[0].0.expect("loc").line);
            got.insert((x, y));
        }
        let want = reference(&stmts, split, looped);
        races += want.len();
        assert_eq!(got, want, "case {case}:\n{src}");
    }
    assert!(races > 100, "the campaign exercises races ({races})");
}
