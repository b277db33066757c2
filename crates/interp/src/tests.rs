use super::*;

fn kernel(src: &str) -> (Kernel, Target) {
    let f = syncopt_ir::parse(src).expect("parses");
    let m = &f.chunks[0];
    let t = Target::from_name(m.target.as_deref().unwrap_or("sm_90")).unwrap();
    (m.kernels[0].clone(), t)
}

fn run_src(src: &str) -> Result<Vec<u64>, Diagnostic> {
    let (k, t) = kernel(src);
    run(&k, t)
}

#[test]
fn index_store_then_neighbour_load() {
    // 1 warp of 32 threads: thread t stores word t, then loads word (t + 1) of a 33-word
    // buffer (word 32 is never written: it stays 0).
    let sums = run_src(
        "target sm_90\nkernel @k() waves 1 {\n  %A = buffer workgroup 132\n  op \"st\" write %A[tid]\n  barrier\n  op \"ld\" read %A[tid + 1]\n}\n",
    )
    .unwrap();
    assert_eq!(sums.len(), 32);
    for t in 0..32u32 {
        let w = if t + 1 < 32 {
            store_value(0, t + 1, 0, 0)
        } else {
            0
        };
        assert_eq!(sums[t as usize], fold(checksum_init(t), w), "thread {t}");
    }
}

#[test]
fn whole_buffer_patterns_cross_threads() {
    // 2 warps, T = 64 threads, 128 words. Write rotations are odd multiples of a quarter warp
    // (u = 8), R = 64 / 16 = 4 of them: step s rotates by 8 * (2 (s mod 4) + 1). The store is
    // op 0 outside any loop: step 0, rotation 8, so thread t writes words p and p + 64 (its
    // k = 0 and k = 1 words) with p = (t + 8) mod 64. The load reverses with a = 64 - 1 - 16
    // = 47: thread t reads q = (47 - t) mod 64 and q + 64, which thread (q - 8) mod 64 wrote
    // as its words 0 and 1.
    let sums = run_src(
        "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 512\n  op \"st\" write %A\n  barrier\n  op \"ld\" read %A\n}\n",
    )
    .unwrap();
    let mut crossing = 0;
    for t in 0..64u32 {
        let q = (47 + 64 - t) % 64;
        let w = (q + 64 - 8) % 64;
        assert_ne!(w, t);
        if w / 32 != t / 32 {
            crossing += 1;
        }
        let cs = fold(
            fold(checksum_init(t), store_value(0, w, 0, 0)),
            store_value(0, w, 0, 1),
        );
        assert_eq!(sums[t as usize], cs, "thread {t}");
    }
    // With 2 warps reader t meets writer (47 - 8 - t) mod 64 = (39 - t) mod 64: lanes 0..7
    // of each warp meet the other warp (t = 0 reads word 47, written by thread 39; t = 32
    // meets thread 7), lanes 8..31 their own warp. The old reversal (31 - t) mod 64 kept every
    // pair inside one warp.
    assert_eq!(crossing, 16);
    // Steps 1, 2, 3 rotate by 24, 40, 56; step 4 wraps to 8. With 4 warps there are 8.
    assert_eq!(write_rotation(64, 32, 1), 24);
    assert_eq!(write_rotation(64, 32, 2), 40);
    assert_eq!(write_rotation(64, 32, 3), 56);
    assert_eq!(write_rotation(64, 32, 4), 8);
    assert_eq!(write_rotation(128, 32, 7), 120);
    assert_eq!(write_rotation(128, 32, 8), 8);
    assert_eq!(read_offset(128, 32), 111);
    // Step = op + sum of the induction variables (wrapping 32-bit, like CUDA's uint32_t).
    assert_eq!(rotation_step(3, &[1, 2]), 6);
    assert_eq!(rotation_step(0, &[-1]), u32::MAX);
}

#[test]
fn whole_buffer_write_rotates_per_iteration() {
    // 2 warps, T = 64, R = 4 rotations 8 * (2 (s mod 4) + 1). The store (op 0) in the nest
    // (i, j) has step i + j: (0,0) -> 0 -> rotation 8, (0,1) and (1,0) -> 1 -> 24, (1,1) -> 2
    // -> 40. %A has 64 words, so thread t writes one word, (t + r) mod 64 (k = 0); the load
    // (op 1) reads word t, written by thread (t - r) mod 64 in that iteration, with the
    // iteration key iter_key([i, j]).
    let sums = run_src(
        "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 256\n  for %i = 0 to 2 {\n    for %j = 0 to 2 {\n      op \"st\" write %A\n      barrier\n      op \"ld\" read %A[tid]\n      barrier\n    }\n  }\n}\n",
    )
    .unwrap();
    for t in 0..64u32 {
        let mut cs = checksum_init(t);
        for (i, j, r) in [(0i64, 0i64, 8u32), (0, 1, 24), (1, 0, 24), (1, 1, 40)] {
            let writer = (t + 64 - r) % 64;
            cs = fold(cs, store_value(0, writer, iter_key(&[i, j]), 0));
        }
        assert_eq!(sums[t as usize], cs, "thread {t}");
    }
}

#[test]
fn same_slot_two_iterations_later_is_a_race_without_the_barrier() {
    // One op writing a whole slot of a double buffer: iterations i and i + 2 write the same
    // slot; their steps differ by 2, so rotations differ by 32 words (T = 128: 8 rotations)
    // and every word of the slot is written by threads of two different warps. The barrier
    // orders the two writes; without it the detector sees WAW (the old model wrote each word
    // through the same thread in every iteration: no race).
    let racy = "target sm_90\nkernel @k() waves 4 {\n  %D = buffer workgroup 1024\n  for %i = 0 to 3 {\n    %w = view %D slot (%i) mod 2\n    op \"ds\" write %w\n  }\n}\n";
    let (k, t) = kernel(racy);
    let races = run_with_races(&k, t).unwrap().1;
    assert!(races.iter().any(|r| r.starts_with("WAW")), "{races:?}");
    let fixed = racy.replace("    op \"ds\"", "    barrier\n    op \"ds\"");
    let (k, t) = kernel(&fixed);
    assert!(run_with_races(&k, t).unwrap().1.is_empty());
}

#[test]
fn loop_iteration_key_and_slot_views() {
    // Double buffer over 2 slots: iteration i writes slot i mod 2 at word tid, reads the
    // other slot's word tid (written in iteration i - 1, or 0 in iteration 0).
    let sums = run_src(
        "target sm_90\nkernel @k(%n = 3) waves 1 {\n  %A = buffer workgroup 256\n  for %i = 0 to %n {\n    %w = view %A slot (%i) mod 2\n    %r = view %A slot (%i + 1) mod 2\n    op \"st\" write %w[tid]\n    barrier\n    op \"ld\" read %r[tid]\n    barrier\n  }\n}\n",
    )
    .unwrap();
    for t in 0..32u32 {
        let mut cs = checksum_init(t);
        for i in 0..3i64 {
            let w = if i == 0 {
                0
            } else {
                store_value(0, t, iter_key(&[i - 1]), 0)
            };
            cs = fold(cs, w);
        }
        assert_eq!(sums[t as usize], cs, "thread {t}");
    }
}

#[test]
fn async_copy_lands_at_its_wait() {
    // The read before the wait sees 0; the read after it the global word.
    let sums = run_src(
        "target sm_90\nkernel @k() waves 1 {\n  %G = buffer global 128\n  %A = buffer workgroup 128\n  op \"cp\" async write %A[tid], read %G[tid]\n  cp_async.commit\n  op \"ld\" read %A[tid]\n  cp_async.wait 0\n  op \"ld\" read %A[tid]\n}\n",
    )
    .unwrap();
    for t in 0..32u32 {
        // G is at global word 0; the copy's source read is not a load.
        let g = gin_value(t as u64);
        let cs = fold(fold(checksum_init(t), 0), g);
        assert_eq!(sums[t as usize], cs, "thread {t}");
    }
}

#[test]
fn wait_leaves_the_newest_groups_in_flight() {
    let sums = run_src(
        "target sm_90\nkernel @k() waves 1 {\n  %G = buffer global 256\n  %A = buffer workgroup 128\n  %B = buffer workgroup 128\n  op \"cp\" async write %A[tid], read %G[tid]\n  cp_async.commit\n  op \"cp\" async write %B[tid], read %G[tid + 32]\n  cp_async.commit\n  cp_async.wait 1\n  op \"ld\" read %A[tid]\n  op \"ld\" read %B[tid]\n}\n",
    )
    .unwrap();
    for t in 0..32u32 {
        let mut cs = fold(checksum_init(t), gin_value(t as u64));
        cs = fold(cs, 0);
        assert_eq!(sums[t as usize], cs, "thread {t}");
    }
}

#[test]
fn divergent_if_and_atomics() {
    let sums = run_src(
        "target sm_90\nkernel @k() waves 2 {\n  %S = buffer workgroup 4\n  if divergent tid < 32 {\n    op \"add\" atomic %S[0]\n  }\n  barrier\n  op \"ld\" read %S[0]\n}\n",
    )
    .unwrap();
    let total = (0..32u32).fold(0u32, |a, t| a.wrapping_add(store_value(0, t, 0, 0)));
    for t in 0..64u32 {
        assert_eq!(sums[t as usize], fold(checksum_init(t), total));
    }
}

#[test]
fn out_of_bounds_index_is_a_diagnostic() {
    let e = run_src(
        "target sm_90\nkernel @k() waves 1 {\n  %A = buffer workgroup 64\n  op \"st\" write %A[tid]\n}\n",
    )
    .unwrap_err();
    assert!(e.message.contains("outside"), "{}", e.message);
    assert!(e.loc.is_some());
}

#[test]
fn two_threads_writing_one_word_in_one_op_is_a_diagnostic() {
    let e = run_src(
        "target sm_90\nkernel @k() waves 1 {\n  %A = buffer workgroup 64\n  op \"st\" write %A[0]\n}\n",
    )
    .unwrap_err();
    assert!(e.message.contains("both write"), "{}", e.message);
}

#[test]
fn parameters_need_defaults_and_ascend_is_refused() {
    let e = run_src("target sm_90\nkernel @k(%n) waves 1 {\n  for %i = 0 to %n {\n  }\n}\n")
        .unwrap_err();
    assert!(e.message.contains("default"), "{}", e.message);
    let e = run_src("target ascend910b\nkernel @k() {\n}\n").unwrap_err();
    assert!(e.message.contains("GPU"), "{}", e.message);
}

#[test]
fn aliases_share_words() {
    // %B aliases %A: a write through %B is read through %A.
    let sums = run_src(
        "target sm_90\nkernel @k() waves 1 {\n  %A = buffer workgroup 128\n  %B = buffer workgroup 128 aliases %A\n  %C = buffer workgroup 64 at %A + 64\n  op \"st\" write %B[tid]\n  barrier\n  op \"ld\" read %A[tid]\n  op \"ld\" read %C[0]\n}\n",
    )
    .unwrap();
    for t in 0..32u32 {
        let cs = fold(
            fold(checksum_init(t), store_value(0, t, 0, 0)),
            store_value(0, 16, 0, 0),
        );
        assert_eq!(sums[t as usize], cs);
    }
}

#[test]
fn race_detector_sees_missing_barriers_only() {
    let racy = "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 512\n  op \"st\" write %A[tid]\n  op \"ld\" read %A[tid + 32]\n}\n";
    let (k, t) = kernel(racy);
    let (_, races) = run_with_races(&k, t).unwrap();
    assert!(races.iter().any(|r| r.starts_with("RAW")), "{races:?}");
    let fixed = racy.replace("  op \"ld\"", "  barrier\n  op \"ld\"");
    let (k, t) = kernel(&fixed);
    assert_eq!(run_with_races(&k, t).unwrap().1, Vec::<String>::new());
    // Same-thread reuse is no race.
    let own = racy.replace("%A[tid + 32]", "%A[tid]");
    let (k, t) = kernel(&own);
    assert!(run_with_races(&k, t).unwrap().1.is_empty());
}

#[test]
fn race_detector_war_atomics_and_async() {
    let war = "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 512\n  op \"ld\" read %A[tid + 32]\n  op \"st\" write %A[tid]\n}\n";
    let (k, t) = kernel(war);
    assert!(run_with_races(&k, t)
        .unwrap()
        .1
        .iter()
        .any(|r| r.starts_with("WAR")));
    let atomics = "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 512\n  op \"a\" atomic %A[0]\n  op \"b\" atomic %A[0]\n}\n";
    let (k, t) = kernel(atomics);
    assert!(run_with_races(&k, t).unwrap().1.is_empty());
    // A plain store, then other warps' atomics on its word.
    let mixed = "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 512\n  op \"st\" write %A[tid]\n  op \"a\" atomic %A[0]\n}\n";
    let (k, t) = kernel(mixed);
    assert!(run_with_races(&k, t)
        .unwrap()
        .1
        .iter()
        .any(|r| r.starts_with("WAW")));
    // Two copies of one thread to one word, the first not waited for.
    let copies = "target sm_90\nkernel @k() waves 1 {\n  %G = buffer global 256\n  %A = buffer workgroup 128\n  op \"c1\" async write %A[tid], read %G[tid]\n  cp_async.commit\n  op \"c2\" async write %A[tid], read %G[tid + 32]\n  cp_async.commit\n  cp_async.wait 0\n}\n";
    let (k, t) = kernel(copies);
    let races = run_with_races(&k, t).unwrap().1;
    assert!(
        races.iter().any(|r| r.starts_with("async WAW")),
        "{races:?}"
    );
    let waited = copies.replacen(
        "  cp_async.commit\n",
        "  cp_async.commit\n  cp_async.wait 0\n",
        1,
    );
    let (k, t) = kernel(&waited);
    assert!(run_with_races(&k, t).unwrap().1.is_empty());
    // A copy issued after another warp's read of its word, with a barrier only before the
    // wait: the copy may land right after its issue (WAR on the hardware), so the issue counts
    // as a write in its barrier interval; a barrier before the issue orders the two.
    let late = "target sm_90\nkernel @k() waves 2 {\n  %G = buffer global 256\n  %A = buffer workgroup 256\n  op \"ld\" read %A[63 - tid]\n  op \"c\" async write %A[tid], read %G[tid]\n  cp_async.commit\n  barrier\n  cp_async.wait 0\n}\n";
    let (k, t) = kernel(late);
    let races = run_with_races(&k, t).unwrap().1;
    assert!(races.iter().any(|r| r.starts_with("WAR")), "{races:?}");
    let (k, t) = kernel(&late.replace("  op \"c\"", "  barrier\n  op \"c\""));
    assert!(run_with_races(&k, t).unwrap().1.is_empty());
    // A copy read by another warp needs its wait and a barrier.
    let publish = "target sm_90\nkernel @k() waves 2 {\n  %G = buffer global 256\n  %A = buffer workgroup 256\n  op \"c\" async write %A[tid], read %G[tid]\n  cp_async.commit\n  cp_async.wait 0\n  op \"ld\" read %A[63 - tid]\n}\n";
    let (k, t) = kernel(publish);
    assert!(!run_with_races(&k, t).unwrap().1.is_empty());
    let (k, t) = kernel(&publish.replace("  op \"ld\"", "  barrier\n  op \"ld\""));
    assert!(run_with_races(&k, t).unwrap().1.is_empty());
}

#[test]
fn pattern_invariants_hold_for_every_shape() {
    // For every workgroup shape: each instance's pattern is a permutation; a cooperative write
    // never reaches a word `tid + 32 m` or `c - tid` (c = T - 1 + off, off a multiple of 32)
    // through that word's own thread, nor a reversed read's word through the reader; the
    // rotations are 2 * waves distinct values, one per step mod R; two different rotations
    // put at least half of each warp's words in another warp; the reversal reaches another
    // warp from every warp when there are 2 or more.
    for wave in [32u32, 64] {
        for waves in 1..=(1024 / wave) {
            let t = waves * wave;
            let r = rotations(t, wave);
            assert_eq!(r, 2 * waves);
            let rots: Vec<i64> = (0..r).map(|s| write_rotation(t, wave, s)).collect();
            let mut sorted = rots.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), r as usize, "T = {t}");
            assert_eq!(write_rotation(t, wave, r), rots[0]);
            for &x in &rots {
                assert!(x % 32 != 0 && x % 2 == 0, "T = {t}: {x}");
            }
            let a = read_offset(t, wave);
            assert_eq!(a % 2, 1);
            for s in 0..r {
                let mut seen = vec![false; t as usize];
                for tid in 0..t {
                    let p = pattern_start(tid, t, wave, s, false);
                    assert!(!seen[p as usize]);
                    seen[p as usize] = true;
                    for m in 0..(t / 32) as i64 {
                        assert_ne!((tid as i64 + 32 * m) % t as i64, p, "T = {t}");
                        assert_ne!((t as i64 - 1 + 32 * m - tid as i64).rem_euclid(t as i64), p);
                    }
                    assert_ne!(pattern_start(tid, t, wave, 0, true), p);
                }
                for s2 in 0..r {
                    if s2 == s || waves == 1 {
                        continue;
                    }
                    // Word p: written by tid under step s and by tid2 under step s2.
                    let crossing = (0..t)
                        .filter(|&tid| {
                            let p = pattern_start(tid, t, wave, s, false);
                            let tid2 = (p - write_rotation(t, wave, s2)).rem_euclid(t as i64);
                            tid2 as u32 / wave != tid / wave
                        })
                        .count();
                    assert!(crossing * 2 >= t as usize, "T = {t} steps {s} {s2}");
                }
            }
            if waves >= 2 {
                for w in 0..waves {
                    assert!((w * wave..(w + 1) * wave)
                        .any(|tid| { pattern_start(tid, t, wave, 0, true) as u32 / wave != w }));
                }
            }
        }
    }
}
