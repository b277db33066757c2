//! The printer against the parser: every example round-trips, `fmt` is a fixed point, and
//! comments stay where they were written.

use std::path::PathBuf;

use syncopt_ir::{parse, print_file};

fn examples() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/ exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sk"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (p, text)
        })
        .collect();
    out.sort();
    out
}

fn fmt(src: &str) -> String {
    print_file(&parse(src).unwrap_or_else(|d| panic!("{}", d.render("input", src))))
}

#[test]
fn every_example_round_trips() {
    let all = examples();
    assert!(
        all.len() >= 7,
        "expected the seven examples, found {}",
        all.len()
    );
    for (path, text) in all {
        let once = fmt(&text);
        let twice = fmt(&once);
        assert_eq!(
            once,
            twice,
            "{}: print(parse(print(parse(x)))) differs",
            path.display()
        );
        // The examples are written in canonical form.
        assert_eq!(once, text, "{}: not a fmt fixed point", path.display());
    }
}

#[test]
fn fmt_canonicalizes_then_is_a_fixed_point() {
    let messy = "target   gfx950\nkernel @k( %n=4 ,%m )waves 2{\n%A=buffer workgroup 64\n\
                 %B = buffer workgroup 64 at %A+0\n  for %i=0 to %n step 1 max 8 {\n\
                 op \"w\" write %A[ 2*tid+%i*4 -1 ]\nop \"r\" read %A[0:8],read %B\n}\n\
                 if %n mod 2==1 { op \"c\" } else { barrier }\n}";
    let once = fmt(messy);
    let expected = "target gfx950\n\nkernel @k(%n = 4, %m) waves 2 {\n  %A = buffer workgroup 64\n  \
                    %B = buffer workgroup 64 at %A\n  for %i = 0 to %n max 8 {\n    \
                    op \"w\" write %A[tid * 2 + %i * 4 - 1]\n    op \"r\" read %A[0:8], read %B\n  }\n  \
                    if divergent %n mod 2 == 1 {\n    op \"c\"\n  } else {\n    barrier\n  }\n}\n";
    assert_eq!(once, expected);
    assert_eq!(fmt(&once), once);
}

#[test]
fn every_statement_form_round_trips() {
    let src = "target gfx1250

kernel @all(%n = 3, %c) waves 8 {
  %A = buffer workgroup 4096
  %B = buffer workgroup 1024 aliases %A
  %C = buffer workgroup 512 at %A + 512
  %G = buffer global 65536
  %v = view %A[0:2048]
  %w = view %v[1024:2048]
  op \"ds_write\" write %A[tid * 4 + 1], atomic %B, read %C[-tid + 3]
  op \"t\" async(tensorcnt) write %w, read %G
  op \"g\" async write %v
  %x, %y = for %i = 0 to %n step 2 min 1 max 9 iter(%p = %v, %q = %w) {
    %s = view %A slot (%i + 1) mod 2
    op \"r\" read %s, read %p[0:16]
    yield %q, %p
  }
  %z = if uniform (%c + 1) mod 2 == 0 {
    yield %x
  } else {
    yield %y
  }
  if divergent tid < 64 {
    op \"m\"
  }
  barrier
  barrier exec
  barrier id 3 threads 128
  barrier.signal -1
  barrier.wait 2
  cond_barrier high
  wait tensorcnt(1)
  cp_async.commit
  cp_async.wait 2
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 2 + (%n + 1) mod 2
  pipe_barrier ALL
  sched_barrier 0
  setprio 3
  for %k = 0 to 4 {
    stage prio 3 gap 1
    op \"a\" read %z
    stage
  }
  stage
  op \"b\"
  stage.end
}
";
    assert_eq!(fmt(src), src);
}

#[test]
fn comments_are_kept_where_they_were() {
    let src = "// file header
target gfx950

// before the kernel
kernel @k {
  // before a buffer
  %A = buffer workgroup 64
  // before an op
  op \"x\" write %A
  for %i = 0 to 2 {
    // inside the loop
    op \"y\" read %A
    // at the end of the loop body
  }
  // before the closing brace
}
// trailing

// -----

// second chunk
kernel @m {
}
";
    assert_eq!(fmt(src), src);
    let f = parse(src).unwrap();
    assert_eq!(f.chunks.len(), 2);
    assert_eq!(
        f.chunks[1].target.as_deref(),
        Some("gfx950"),
        "inherited target"
    );
    let k = &f.chunks[0].kernels[0];
    assert_eq!(k.comments, vec!["before the kernel".to_string()]);
}

#[test]
fn chunk_targets_are_printed_only_when_they_change() {
    let src = "target gfx950\n\nkernel @a {\n}\n\n// -----\n\ntarget sm_90\n\nkernel @b {\n}\n\n// -----\n\nkernel @c {\n}\n";
    let f = parse(src).unwrap();
    let targets: Vec<_> = f.chunks.iter().map(|c| c.target.clone().unwrap()).collect();
    assert_eq!(targets, ["gfx950", "sm_90", "sm_90"]);
    assert_eq!(print_file(&f), src);
}

#[test]
fn generated_kernels_round_trip() {
    use syncopt_gen::{generate, GenOptions};
    for &target in syncopt_targets::Target::ALL {
        for seed in 0..10 {
            let text = generate(&GenOptions {
                ops: 80,
                seed,
                target,
                executable: false,
            });
            assert_eq!(fmt(&text), text, "{target} seed {seed}");
        }
    }
}
