//! Runs the pass alone on a file: `cargo run -p syncopt-async-waits --example aw -- FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: aw FILE");
    let src = std::fs::read_to_string(&path).expect("read");
    let lines: Vec<&str> = src.lines().collect();
    let mut target = None;
    for m in syncopt_ir::parse_file(&src) {
        let mut m = match m {
            Ok(m) => m,
            Err(d) => {
                eprint!("{}", d.render(&path, &src));
                continue;
            }
        };
        if m.target.is_some() {
            target = m.target.clone();
        }
        let t = syncopt_targets::Target::from_name(target.as_deref().unwrap_or("gfx950"))
            .expect("target");
        for k in &mut m.kernels {
            let t0 = std::time::Instant::now();
            let r = syncopt_async_waits::run(k, t, &Default::default());
            eprintln!("aw: pass {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
            for d in &r.diagnostics {
                eprint!("{}", d.render_lines(&path, &lines));
            }
        }
        println!("{}", syncopt_ir::print_module(&m));
    }
}
