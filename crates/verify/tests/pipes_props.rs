//! Property tests of the pipe verifier against a reference model: random balanced Ascend
//! programs (ops on random pipes and byte ranges, set/wait pairs, pipe barriers, one loop),
//! checked against an explicit happens-before computation over the unrolled event list.
//! The reference shares no code with the verifier: it keeps, per pipe, the explicit set of
//! events that any later event on that pipe starts after.
//!
//! Default: 400 programs per property (well under a second). `SYNCOPT_LONG=1`: 20,000.

use std::collections::BTreeSet;

use syncopt_ir::parse;
use syncopt_targets::{check::check_kernel, Target};
use syncopt_verify::pipes;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

const PIPES: [&str; 7] = ["S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"];
const BUFS: [&str; 3] = ["U0", "U1", "U2"];

#[derive(Clone, Debug)]
struct Access {
    buf: usize,
    lo: u64,
    hi: u64,
    /// 0 read, 1 write, 2 atomic
    kind: u8,
}

#[derive(Clone, Debug)]
enum Ev {
    Op {
        line: u32,
        pipe: usize,
        acc: Vec<Access>,
    },
    Set {
        src: usize,
        dst: usize,
        id: u32,
    },
    Wait {
        src: usize,
        dst: usize,
        id: u32,
    },
    Bar {
        pipe: Option<usize>,
    },
}

fn cases() -> u64 {
    if std::env::var("SYNCOPT_LONG").is_ok() {
        20_000
    } else {
        400
    }
}

/// Events of one region; flags set in it are all waited in it (ids from `ids`).
fn gen_region(rng: &mut Rng, n: usize, ids: std::ops::Range<u32>) -> Vec<Ev> {
    let mut out = Vec::new();
    let mut live: Vec<(usize, usize, u32)> = Vec::new();
    for _ in 0..n {
        let r = rng.below(100);
        if r < 55 {
            let pipe = rng.below(7) as usize;
            let nacc = 1 + rng.below(2) as usize;
            let acc = (0..nacc)
                .map(|_| {
                    let lo = rng.below(4) * 16;
                    let hi = lo + 16 * (1 + rng.below(2));
                    Access {
                        buf: rng.below(3) as usize,
                        lo,
                        hi: hi.min(64),
                        kind: match rng.below(10) {
                            0 => 2,
                            1..=5 => 1,
                            _ => 0,
                        },
                    }
                })
                .collect();
            out.push(Ev::Op { line: 0, pipe, acc });
        } else if r < 75 {
            let src = rng.below(7) as usize;
            let mut dst = rng.below(7) as usize;
            if dst == src {
                dst = (dst + 1) % 7;
            }
            let free: Vec<u32> = ids
                .clone()
                .filter(|i| !live.iter().any(|l| l.0 == src && l.2 == *i))
                .collect();
            if let Some(&id) = free.get(rng.below(free.len() as u64) as usize) {
                live.push((src, dst, id));
                out.push(Ev::Set { src, dst, id });
            }
        } else if r < 92 {
            if !live.is_empty() {
                let (src, dst, id) = live.remove(rng.below(live.len() as u64) as usize);
                out.push(Ev::Wait { src, dst, id });
            }
        } else {
            let pipe = match rng.below(4) {
                0 => None,
                1 => Some(1),
                2 => Some(2),
                _ => Some(4),
            };
            out.push(Ev::Bar { pipe });
        }
    }
    while let Some((src, dst, id)) = live.pop() {
        out.push(Ev::Wait { src, dst, id });
    }
    out
}

fn ev_text(e: &Ev) -> String {
    match e {
        Ev::Op { pipe, acc, .. } => {
            let effs: Vec<String> = acc
                .iter()
                .map(|a| {
                    let k = ["read", "write", "atomic"][a.kind as usize];
                    format!("{k} %{}[{}:{}]", BUFS[a.buf], a.lo, a.hi)
                })
                .collect();
            format!("op \"x\" pipe {} {}", PIPES[*pipe], effs.join(", "))
        }
        Ev::Set { src, dst, id } => format!("set_flag {} -> {}, {id}", PIPES[*src], PIPES[*dst]),
        Ev::Wait { src, dst, id } => format!("wait_flag {} -> {}, {id}", PIPES[*src], PIPES[*dst]),
        Ev::Bar { pipe: None } => "pipe_barrier ALL".into(),
        Ev::Bar { pipe: Some(p) } => format!("pipe_barrier {}", PIPES[*p]),
    }
}

/// Writes the program; gives each op its line number.
fn program(
    target: &str,
    pre: &mut [Ev],
    body: Option<(&str, &mut [Ev])>,
    post: &mut [Ev],
) -> String {
    let mut s = format!("target {target}\n\nkernel @p(%n) {{\n");
    let mut line = 4u32;
    for b in BUFS {
        s.push_str(&format!("  %{b} = buffer ub 64\n"));
        line += 1;
    }
    let emit = |s: &mut String, evs: &mut [Ev], indent: &str, line: &mut u32| {
        for e in evs.iter_mut() {
            if let Ev::Op { line: l, .. } = e {
                *l = *line;
            }
            s.push_str(indent);
            s.push_str(&ev_text(e));
            s.push('\n');
            *line += 1;
        }
    };
    emit(&mut s, pre, "  ", &mut line);
    if let Some((head, body)) = body {
        s.push_str(&format!("  for %i = {head} {{\n"));
        line += 1;
        emit(&mut s, body, "    ", &mut line);
        s.push_str("  }\n");
        line += 1;
    }
    emit(&mut s, post, "  ", &mut line);
    s.push_str("}\n");
    s
}

fn conflict(a: &Access, b: &Access) -> bool {
    a.buf == b.buf
        && a.lo < b.hi
        && b.lo < a.hi
        && (a.kind != 0 || b.kind != 0)
        && !(a.kind == 2 && b.kind == 2)
}

/// Lines of the ops that race with some earlier op, by explicit happens-before sets.
fn reference(evs: &[Ev], barrier_pipes: &[usize]) -> BTreeSet<u32> {
    let n = evs.len();
    // after[p]: events every later event on pipe p starts after.
    let mut after: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); 7];
    let mut issued: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); 7];
    let mut before: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut flags: Vec<Option<BTreeSet<usize>>> = vec![None; 7 * 8];
    let mut all_ops: BTreeSet<usize> = BTreeSet::new();
    let mut races = BTreeSet::new();
    // Adds `set` and everything that happened before its members.
    let close = |set: &BTreeSet<usize>, before: &[BTreeSet<usize>]| -> BTreeSet<usize> {
        let mut out = set.clone();
        for &x in set {
            out.extend(before[x].iter().copied());
        }
        out
    };
    for (i, e) in evs.iter().enumerate() {
        match e {
            Ev::Op { line, pipe, acc } => {
                for (j, f) in evs.iter().enumerate().take(i) {
                    if let Ev::Op { acc: acc2, .. } = f {
                        if !after[*pipe].contains(&j)
                            && acc2.iter().any(|a| acc.iter().any(|b| conflict(a, b)))
                        {
                            races.insert(*line);
                        }
                    }
                }
                before[i] = after[*pipe].clone();
                issued[*pipe].insert(i);
                all_ops.insert(i);
                if !barrier_pipes.contains(pipe) {
                    after[*pipe].insert(i);
                }
            }
            Ev::Set { src, id, .. } => {
                let carried: BTreeSet<usize> = close(&issued[*src], &before)
                    .union(&after[*src])
                    .copied()
                    .collect();
                flags[src * 8 + *id as usize] = Some(carried);
            }
            Ev::Wait { src, dst, id } => {
                if let Some(c) = flags[src * 8 + *id as usize].take() {
                    after[*dst].extend(c);
                }
            }
            Ev::Bar { pipe: Some(p) } => {
                let c = close(&issued[*p], &before);
                after[*p].extend(c);
            }
            Ev::Bar { pipe: None } => {
                let c = close(&all_ops, &before);
                for a in after.iter_mut() {
                    a.extend(c.iter().copied());
                }
            }
        }
    }
    races
}

fn verifier_races(src: &str, target: Target) -> BTreeSet<u32> {
    let f = parse(src).unwrap_or_else(|d| panic!("{}\n{src}", d.message));
    let k = &f.chunks[0].kernels[0];
    let bad: Vec<_> = check_kernel(k, target)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(bad.is_empty(), "{bad:?}\n{src}");
    let r = pipes::verify(k, target);
    let mut out = BTreeSet::new();
    for d in r.diagnostics.iter().filter(|d| d.is_error()) {
        assert!(
            d.message.starts_with("race ("),
            "a balanced program: {}\n{src}",
            d.message
        );
        out.insert(d.loc.unwrap().line);
    }
    out
}

fn barrier_pipes(t: Target) -> Vec<usize> {
    t.info()
        .same_pipe_barrier
        .iter()
        .map(|p| PIPES.iter().position(|q| *q == p.as_str()).unwrap())
        .collect()
}

#[test]
fn straight_line_matches_reference() {
    let mut racy = 0;
    for seed in 0..cases() {
        let mut rng = Rng(seed * 7919 + 1);
        let t = if seed % 3 == 0 {
            Target::Ascend950
        } else {
            Target::Ascend910b
        };
        let n = 2 + rng.below(24) as usize;
        let mut evs = gen_region(&mut rng, n, 0..8);
        let src = program(t.name(), &mut evs, None, &mut []);
        let want = reference(&evs, &barrier_pipes(t));
        let got = verifier_races(&src, t);
        racy += !want.is_empty() as u64;
        assert_eq!(got, want, "seed {seed}\n{src}");
    }
    // Not vacuous: both outcomes are common.
    assert!(
        racy > cases() / 10 && racy < cases() * 9 / 10,
        "{racy} racy"
    );
}

#[test]
fn one_loop_matches_unrolled_reference() {
    let (mut racy, mut loop_only) = (0, 0);
    for seed in 0..cases() {
        let mut rng = Rng(seed * 104_729 + 3);
        let t = if seed % 3 == 0 {
            Target::Ascend950
        } else {
            Target::Ascend910b
        };
        let n_pre = rng.below(8) as usize;
        let mut pre = gen_region(&mut rng, n_pre, 0..4);
        // Leave some prefix flags live across the loop, waited after it.
        let mut carried = Vec::new();
        while rng.chance(40) {
            // Only trailing waits: an earlier one may precede a set of the same flag.
            if matches!(pre.last(), Some(Ev::Wait { .. })) {
                carried.push(pre.pop().unwrap());
            } else {
                break;
            }
        }
        let n_body = 1 + rng.below(10) as usize;
        let mut body = gen_region(&mut rng, n_body, 4..8);
        let mut post = carried;
        let n_post = rng.below(6) as usize;
        post.extend(gen_region(&mut rng, n_post, 0..4));
        let known = seed % 4 == 1;
        let head = if known { "0 to 3" } else { "0 to %n" };
        let src = program(t.name(), &mut pre, Some((head, &mut body)), &mut post);
        let mut want = BTreeSet::new();
        let trips: Vec<usize> = if known { vec![3] } else { (0..=5).collect() };
        for k in trips {
            let mut evs = pre.clone();
            for _ in 0..k {
                evs.extend(body.iter().cloned());
            }
            evs.extend(post.iter().cloned());
            want.extend(reference(&evs, &barrier_pipes(t)));
        }
        let got = verifier_races(&src, t);
        racy += !want.is_empty() as u64;
        // Races that need two or more trips to show.
        let mut short = pre.clone();
        short.extend(body.iter().cloned());
        short.extend(post.iter().cloned());
        let mut one = reference(&short, &barrier_pipes(t));
        one.extend(reference(
            &[pre.clone(), post.clone()].concat(),
            &barrier_pipes(t),
        ));
        loop_only += (want != one) as u64;
        assert_eq!(got, want, "seed {seed}\n{src}");
    }
    assert!(
        racy > cases() / 10 && racy < cases() * 9 / 10,
        "{racy} racy"
    );
    assert!(
        loop_only > cases() / 50,
        "{loop_only} with loop-carried races"
    );
}

/// Exact oracle for removing a barrier: with `pipe_barrier ALL` after every op, dropping the
/// one between ops i and i+1 leaves exactly the race between those two, if they conflict and
/// their pipes do not order them.
#[test]
fn removing_a_full_barrier_leaves_exactly_the_adjacent_race() {
    for seed in 0..cases() {
        let mut rng = Rng(seed * 31 + 17);
        let t = Target::Ascend910b;
        let n = 2 + rng.below(10) as usize;
        let mut evs: Vec<Ev> = Vec::new();
        for _ in 0..n {
            let mut op = gen_region(&mut rng, 40, 0..1);
            op.retain(|e| matches!(e, Ev::Op { .. }));
            evs.push(op.swap_remove(0));
            evs.push(Ev::Bar { pipe: None });
        }
        let src = program(t.name(), &mut evs, None, &mut []);
        assert!(verifier_races(&src, t).is_empty(), "{src}");
        let drop = rng.below(n as u64 - 1) as usize;
        evs.remove(2 * drop + 1);
        let src = program(t.name(), &mut evs, None, &mut []);
        let (a, b) = (&evs[2 * drop], &evs[2 * drop + 1]);
        let (
            Ev::Op {
                pipe: pa, acc: aa, ..
            },
            Ev::Op {
                line,
                pipe: pb,
                acc: ab,
            },
        ) = (a, b)
        else {
            unreachable!()
        };
        let ordered = pa == pb && !barrier_pipes(t).contains(pa);
        let racy = !ordered && aa.iter().any(|x| ab.iter().any(|y| conflict(x, y)));
        let want: BTreeSet<u32> = if racy {
            [*line].into()
        } else {
            BTreeSet::new()
        };
        assert_eq!(verifier_races(&src, t), want, "seed {seed}\n{src}");
    }
}

/// Generated kernels (syncopt-gen, no sync ops): the verifier never panics, reports only
/// races (no balance error without flags), and `pipe_barrier ALL` after every op makes the
/// same kernel verify.
#[test]
fn generated_kernels_never_panic_and_full_barriers_verify() {
    let n = if std::env::var("SYNCOPT_LONG").is_ok() {
        400
    } else {
        40
    };
    for seed in 0..n {
        for t in [Target::Ascend910b, Target::Ascend950] {
            let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
                ops: 30 + (seed as usize % 5) * 20,
                seed,
                target: t,
                executable: false,
            });
            let f = parse(&src).unwrap_or_else(|d| panic!("{}\n{src}", d.message));
            let k = &f.chunks[0].kernels[0];
            let r = pipes::verify(k, t);
            for d in r.diagnostics.iter().filter(|d| d.is_error()) {
                assert!(d.message.starts_with("race ("), "{}\n{src}", d.message);
            }
            let fenced: String = src
                .lines()
                .map(|l| {
                    if l.trim_start().starts_with("op ") {
                        let ind = &l[..l.len() - l.trim_start().len()];
                        format!("{l}\n{ind}pipe_barrier ALL\n")
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            let f = parse(&fenced).unwrap();
            let r = pipes::verify(&f.chunks[0].kernels[0], t);
            assert!(
                r.is_ok(),
                "seed {seed}: {:?}\n{fenced}",
                r.diagnostics.first()
            );
        }
    }
}
