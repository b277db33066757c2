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
    // 2 warps, 64 threads, 128 words. The store (op 0) rotates by 16: thread t writes words
    // p and p + 64 with p = (t + 16) mod 64. The load reverses: thread t reads words q and
    // q + 64 with q = (31 - t) mod 64, which thread (q - 16) mod 64 wrote as its k-th word.
    let sums = run_src(
        "target sm_90\nkernel @k() waves 2 {\n  %A = buffer workgroup 512\n  op \"st\" write %A\n  barrier\n  op \"ld\" read %A\n}\n",
    )
    .unwrap();
    for t in 0..64u32 {
        let q = (31 + 64 - t) % 64;
        let w = (q + 64 - 16) % 64;
        assert_ne!(w, t);
        let cs = fold(
            fold(checksum_init(t), store_value(0, w, 0, 0)),
            store_value(0, w, 0, 1),
        );
        assert_eq!(sums[t as usize], cs, "thread {t}");
    }
    // The second op's writes rotate by 16 + 32.
    assert_eq!(write_rotation(64, 32, 1), 48);
    assert_eq!(write_rotation(64, 32, 2), 16);
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
    // A copy read by another warp needs its wait and a barrier.
    let publish = "target sm_90\nkernel @k() waves 2 {\n  %G = buffer global 256\n  %A = buffer workgroup 256\n  op \"c\" async write %A[tid], read %G[tid]\n  cp_async.commit\n  cp_async.wait 0\n  op \"ld\" read %A[63 - tid]\n}\n";
    let (k, t) = kernel(publish);
    assert!(!run_with_races(&k, t).unwrap().1.is_empty());
    let (k, t) = kernel(&publish.replace("  op \"ld\"", "  barrier\n  op \"ld\""));
    assert!(run_with_races(&k, t).unwrap().1.is_empty());
}
