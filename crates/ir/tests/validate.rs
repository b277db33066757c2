//! `syncopt_ir::validate`: the target-independent checks, each with its location.

use syncopt_ir::{parse, validate::validate};

fn diags(body: &str) -> Vec<(String, String)> {
    let src = format!("kernel @k(%n) {{\n{body}\n}}\n");
    let f = parse(&src).unwrap_or_else(|d| panic!("{}", d.render("t", &src)));
    validate(&f.chunks[0].kernels[0])
        .into_iter()
        .map(|d| (d.loc.map(|l| l.to_string()).unwrap_or_default(), d.message))
        .collect()
}

fn one(body: &str, at: &str, msg: &str) {
    let d = diags(body);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, at);
    assert!(d[0].1.contains(msg), "{:?} lacks {msg:?}", d[0].1);
}

#[test]
fn valid_kernel_has_no_diagnostics() {
    let d = diags(
        "  %A = buffer workgroup 64\n  %B = buffer workgroup 32 at %A + 32\n  %v = view %A[0:64]\n  \
         %s = view %A slot (%n) mod 4\n  op \"x\" read %v[0:64], write %B[0:32]\n  \
         if uniform %n {\n    barrier\n  }",
    );
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn placement_past_the_base() {
    one(
        "  %A = buffer workgroup 64\n  %B = buffer workgroup 64 at %A + 32",
        "3:3",
        "'%B' is placed at bytes [32:96] of '%A', which has only 64 bytes",
    );
}

#[test]
fn view_past_its_base() {
    one(
        "  %A = buffer workgroup 64\n  %v = view %A[0:128]",
        "3:3",
        "view '%v' ends at byte 128, past the 64 bytes of '%A'",
    );
}

#[test]
fn view_of_view_past_its_base() {
    one(
        "  %A = buffer workgroup 64\n  %v = view %A[32:64]\n  %w = view %v[0:48]",
        "4:3",
        "view '%w' ends at byte 48, past the 32 bytes of '%v'",
    );
}

#[test]
fn uneven_slots() {
    one(
        "  %A = buffer workgroup 64\n  for %i = 0 to 4 {\n    %s = view %A slot (%i) mod 3\n  }",
        "4:5",
        "view '%s' cuts 64 bytes into 3 slots, which do not divide evenly",
    );
}

#[test]
fn access_past_the_end() {
    one(
        "  %A = buffer workgroup 64\n  op \"x\" write %A[0:65]",
        "3:10",
        "access ends at byte 65, past the 64 bytes of '%A'",
    );
}

#[test]
fn barrier_in_divergent_if() {
    let src = "kernel @k {\n  if divergent tid < 64 {\n    for %i = 0 to 2 {\n      barrier.wait -1\n    }\n  }\n}\n";
    let f = parse(src).unwrap();
    let d = validate(&f.chunks[0].kernels[0]);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].loc.unwrap().to_string(), "4:7");
    assert!(d[0]
        .message
        .contains("barrier inside divergent control flow"));
    // The note points at the divergent if.
    assert_eq!(d[0].notes[0].0.unwrap().to_string(), "2:3");
}

#[test]
fn barrier_in_uniform_if_or_unstated_if() {
    assert!(diags("  if uniform %n {\n    barrier\n  }").is_empty());
    // Unstated uniformity means divergent.
    one("  if %n {\n    cond_barrier low\n  }", "3:5", "divergent");
}

#[test]
fn non_barrier_syncs_are_fine_in_divergent_code() {
    assert!(diags("  if divergent tid < 3 {\n    wait vmcnt(0)\n    setprio 1\n  }").is_empty());
}

#[test]
fn extreme_offsets_do_not_overflow() {
    // Offsets near u64/i64 limits must give diagnostics, not arithmetic panics.
    let d = diags(
        "  %A = buffer workgroup 9223372036854775807\n  \
         %B = buffer workgroup 9223372036854775807 at %A + 9223372036854775807\n  \
         %C = buffer workgroup 9223372036854775807 at %B + 9223372036854775807\n  \
         %v = view %C[9223372036854775806:9223372036854775807]\n  op \"x\" read %v[0:1]",
    );
    assert!(!d.is_empty());
    let src = "kernel @k {\n  for %i = -9223372036854775807 to 9223372036854775807 {\n  }\n}\n";
    let f = parse(src).unwrap();
    let k = &f.chunks[0].kernels[0];
    k.walk(&mut |_, d| {
        if let syncopt_ir::StmtKind::For(fd) = &d.kind {
            assert_eq!(fd.trips().exact(), Some(u64::MAX - 1));
        }
    });
}

#[test]
fn one_walk_keeps_each_checks_diagnostics_together_in_program_order() {
    // Barrier and range problems interleaved in the source: ranges come first, then
    // barriers, each in program order (as the two separate walks gave them).
    let d = diags(
        "  %A = buffer workgroup 64\n  if divergent tid < 3 {\n    barrier\n    \
         op \"x\" write %A[0:65]\n    barrier\n  }\n  op \"y\" read %A[0:66]",
    );
    let at: Vec<&str> = d.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(at, ["5:12", "8:10", "4:5", "6:5"], "{d:?}");
    assert!(d[0].1.contains("access ends at byte 65"));
    assert!(d[1].1.contains("access ends at byte 66"));
    assert!(d[2].1.contains("divergent"));
}

#[test]
fn validate_with_visits_what_walk_visits() {
    let src = "kernel @k(%n) {\n  %A = buffer workgroup 64\n  for %i = 0 to 4 {\n    \
               if uniform %n {\n      op \"a\" read %A\n    } else {\n      op \"b\"\n      \
               if %n {\n        op \"c\"\n      }\n    }\n    op \"d\"\n  }\n  op \"e\"\n}\n";
    let f = parse(src).unwrap();
    let k = &f.chunks[0].kernels[0];
    let mut walked = Vec::new();
    k.walk(&mut |s, _| walked.push(s));
    let mut visited = Vec::new();
    let d = syncopt_ir::validate::validate_with(k, &mut |s, _| visited.push(s));
    assert_eq!(walked, visited);
    assert_eq!(walked.len(), 8);
    assert_eq!(d, validate(k));
    for (_, data) in k.stmts.iter() {
        let ids: Vec<_> = data.kind.child_block_ids().collect();
        assert_eq!(ids, data.kind.child_blocks());
        assert_eq!(data.kind.child_block_ids().len(), ids.len());
    }
}
