//! Every `gen --executable` kernel is valid, executable and deterministic.

use syncopt_gen::{generate, GenOptions};
use syncopt_targets::Target;

#[test]
fn generated_executable_kernels_run() {
    let mut loops = 0;
    let mut copies = 0;
    for seed in 0..150u64 {
        let text = generate(&GenOptions {
            ops: 30,
            seed,
            target: Target::Gfx950,
            executable: true,
        });
        let file =
            syncopt_ir::parse(&text).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
        let m = &file.chunks[0];
        assert_eq!(m.target.as_deref(), Some("sm_90"));
        let k = &m.kernels[0];
        let t = Target::Sm90;
        let diags = syncopt_ir::validate::validate(k);
        assert!(diags.is_empty(), "seed {seed}: {diags:?}\n{text}");
        let a = syncopt_interp::run(k, t).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
        let b = syncopt_interp::run(k, t).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len() as u32, t.waves(k) * 32);
        // Atomics only meet atomics: racecheck sees no hazard that involves one.
        for line in text.lines().filter(|l| l.contains(" atomic ")) {
            assert!(line.contains(" atomic %E["), "seed {seed}: {line}");
        }
        loops += text.matches("for %").count();
        copies += text.matches("async write").count();
        assert_eq!(
            text,
            generate(&GenOptions {
                ops: 30,
                seed,
                target: Target::Sm90,
                executable: true
            })
        );
    }
    assert!(loops > 100, "{loops} loops");
    assert!(copies > 100, "{copies} copies");
}
