//! Every `gen --executable` kernel is valid, executable and deterministic.

use syncopt_gen::{generate, GenOptions};
use syncopt_targets::Target;

#[test]
fn generated_executable_kernels_run() {
    let mut loops = 0;
    let mut copies = 0;
    for (seed, t) in (0..150u64).zip(
        [Target::Sm90, Target::Gfx950, Target::Gfx1250]
            .iter()
            .cycle(),
    ) {
        let t = *t;
        let text = generate(&GenOptions {
            ops: 30,
            seed,
            target: t,
            executable: true,
        });
        let file =
            syncopt_ir::parse(&text).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
        let m = &file.chunks[0];
        assert_eq!(m.target.as_deref(), Some(t.name()));
        let k = &m.kernels[0];
        let diags = syncopt_ir::validate::validate(k);
        assert!(diags.is_empty(), "seed {seed}: {diags:?}\n{text}");
        // Every index stays inside its buffer for the target's wave size (an out-of-bounds
        // access is an interpreter error).
        let a = syncopt_interp::run(k, t).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
        let b = syncopt_interp::run(k, t).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len() as u32, t.waves(k) * t.info().wave_size);
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
                target: t,
                executable: true
            })
        );
    }
    // The same draws on wave32 and wave64: the AMD kernel is the NVIDIA one with the warp
    // size (and with it the thread count and buffer sizes) doubled.
    let gen = |target| {
        generate(&GenOptions {
            ops: 30,
            seed: 3,
            target,
            executable: true,
        })
    };
    let (nv, amd) = (gen(Target::Sm90), gen(Target::Gfx942));
    assert_eq!(nv.lines().count(), amd.lines().count());
    assert!(
        amd.contains("\ntarget gfx942\n") && !amd.contains("emit cuda"),
        "{amd}"
    );
    assert!(loops > 100, "{loops} loops");
    assert!(copies > 100, "{copies} copies");
}
