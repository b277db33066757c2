//! The `syncopt` binary end to end: exit codes (0 ok, 1 wrong program, 2 usage or I/O),
//! stdin, `-o`, `fmt --check`, determinism and `--help`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_syncopt"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(name: &str) -> String {
    root()
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("writes");
    child.wait_with_output().expect("waits")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A scratch directory unique to this test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("syncopt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

const BAD_PARSE: &str = "target gfx950\n\nkernel @k {\n  op \"x\" read %nope\n}\n";
const NO_RACE: &str = "target gfx950\n\nkernel @k {\n  %A = buffer workgroup 256\n  op \"mfma\"\n  op \"ds_read\" read %A\n}\n";

/// Every command that reads a kernel, with the arguments before the file.
const FILE_COMMANDS: &[&[&str]] = &[
    &["fmt"],
    &["check"],
    &["insert"],
    &["verify"],
    &["emit", "cuda"],
    &["run"],
];

#[test]
fn missing_file_is_a_usage_error() {
    for cmd in FILE_COMMANDS {
        let mut args = cmd.to_vec();
        args.push("/nonexistent/k.sk");
        let o = run(&args);
        assert_eq!(code(&o), 2, "{cmd:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot read '/nonexistent/k.sk'"),
            "{cmd:?}"
        );
    }
}

#[test]
fn parse_error_exits_1_with_file_line_col() {
    let d = scratch("parse");
    let f = write(&d, "bad.sk", BAD_PARSE);
    for cmd in FILE_COMMANDS {
        let mut args = cmd.to_vec();
        args.push(&f);
        let o = run(&args);
        assert_eq!(code(&o), 1, "{cmd:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!("{f}:4:15: error: use of undeclared name '%nope'")),
            "{cmd:?}: {e}"
        );
        // The source line and a caret under the column.
        assert!(
            e.contains("\n    op \"x\" read %nope\n                ^\n"),
            "{e}"
        );
    }
}

#[test]
fn unknown_target_is_a_usage_error() {
    for cmd in FILE_COMMANDS.iter().filter(|c| c[0] != "fmt") {
        let mut args = cmd.to_vec();
        args.extend(["--target", "gfx9000"]);
        let ex = example("attention_gfx950.sk");
        args.push(&ex);
        let o = run(&args);
        assert_eq!(code(&o), 2, "{cmd:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("unknown target 'gfx9000'"), "{cmd:?}");
    }
    let o = run(&["gen", "--target", "gfx9000"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("unknown target 'gfx9000'"));
}

/// `gen --executable` makes sm_90 kernels without `--target`, and kernels for the target
/// asked for otherwise (wave64 ones on AMD), which `run` executes.
#[test]
fn executable_gen_targets() {
    let o = run(&["gen", "--executable", "--ops", "10"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\ntarget sm_90\n"));
    let o = run(&["gen", "--executable", "--ops", "10", "--target", "sm_80"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\ntarget sm_80\n"));
    let d = scratch("execamd");
    let f = d.join("k.sk");
    let o = run(&[
        "gen",
        "--executable",
        "--target",
        "gfx950",
        "--ops",
        "20",
        "--output",
        f.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.contains("\ntarget gfx950\n"), "{text}");
    let o = run(&["run", f.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // One line per thread: 64-wide waves.
    let waves: u32 = text
        .split(" waves ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|w| w.parse().ok())
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().count() as u32,
        64 * waves
    );
    let o = run(&["gen", "--executable", "--target", "ascend910b"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("GPU target"), "{}", stderr(&o));
    // Without --executable the default stays gfx950.
    let o = run(&["gen", "--ops", "10"]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("target gfx950\n"));
}

#[test]
fn unknown_target_in_the_file_is_a_program_error() {
    let d = scratch("filetarget");
    let f = write(&d, "k.sk", "target gfx9000\n\nkernel @k {\n}\n");
    let o = run(&["check", &f]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("{f}:1:8: error: unknown target 'gfx9000'")));
}

#[test]
fn unknown_flag_is_a_usage_error() {
    for cmd in FILE_COMMANDS.iter().chain([&["gen"][..]].iter()) {
        let mut args = cmd.to_vec();
        args.push("--frobnicate");
        let o = run(&args);
        assert_eq!(code(&o), 2, "{cmd:?}");
        assert!(stderr(&o).contains("--frobnicate"), "{cmd:?}");
    }
    assert_eq!(code(&run(&["frobnicate"])), 2);
}

#[test]
fn check_accepts_every_example() {
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "sk") {
            let o = run(&["check", p.to_str().unwrap()]);
            assert_eq!(code(&o), 0, "{}: {}", p.display(), stderr(&o));
            assert!(stderr(&o).contains("1 kernel(s) ok"));
        }
    }
}

#[test]
fn check_reports_target_errors() {
    let d = scratch("check");
    let f = write(
        &d,
        "k.sk",
        "target gfx950\n\nkernel @k {\n  %A = buffer ub 64\n  set_flag MTE2 -> V, 0\n}\n",
    );
    let o = run(&["check", &f]);
    assert_eq!(code(&o), 1);
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "{f}:4:3: error: memory space 'ub' does not exist on gfx950"
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "{f}:5:3: error: set_flag/wait_flag are Ascend-only"
        )),
        "{e}"
    );
    // --target overrides the file's line: on ascend910b the same kernel is fine.
    let o = run(&["check", "--target", "ascend910b", &f]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn stdin_is_dash() {
    let text = std::fs::read_to_string(example("attention_gfx950.sk")).unwrap();
    let o = run_stdin(&["fmt", "-"], &text);
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), text);
    let o = run_stdin(&["check", "-"], &text);
    assert_eq!(code(&o), 0);
    let o = run_stdin(&["check", "-"], BAD_PARSE);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("<stdin>:4:15: error"), "{}", stderr(&o));
}

#[test]
fn output_file() {
    let d = scratch("out");
    let out = d.join("o.sk").to_string_lossy().into_owned();
    let ex = example("ascend_matmul_tile.sk");
    let o = run(&["fmt", &ex, "-o", &out]);
    assert_eq!(code(&o), 0);
    assert!(o.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(&ex).unwrap()
    );
    let o = run(&["gen", "--ops", "20", "--output", &out]);
    assert_eq!(code(&o), 0);
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("target gfx950\n"));
    // An unwritable output is an I/O error.
    let o = run(&["fmt", &ex, "-o", "/nonexistent/dir/o.sk"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("cannot write"));
}

#[test]
fn fmt_check() {
    let d = scratch("fmtcheck");
    let ok = example("block_reduction_gfx942.sk");
    let o = run(&["fmt", "--check", &ok]);
    assert_eq!(code(&o), 0);
    assert!(o.stdout.is_empty());
    let messy = write(&d, "m.sk", "target gfx950\nkernel @k {\n op \"x\"\n}\n");
    let o = run(&["fmt", "--check", &messy]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("not in canonical form"));
    // fmt output is canonical.
    let o = run(&["fmt", &messy]);
    let fixed = write(&d, "f.sk", &stdout(&o));
    assert_eq!(code(&run(&["fmt", "--check", &fixed])), 0);
}

#[test]
fn gen_is_deterministic_and_valid() {
    for t in [
        "gfx942",
        "gfx950",
        "gfx1200",
        "gfx1250",
        "sm_80",
        "sm_90",
        "ascend910b",
        "ascend950",
    ] {
        let a = run(&["gen", "--ops", "150", "--seed", "42", "--target", t]);
        let b = run(&["gen", "--ops", "150", "--seed", "42", "--target", t]);
        assert_eq!(code(&a), 0);
        assert_eq!(a.stdout, b.stdout, "{t}");
        let c = run(&["gen", "--ops", "150", "--seed", "43", "--target", t]);
        assert_ne!(a.stdout, c.stdout, "{t}");
        let o = run_stdin(&["check", "-"], &stdout(&a));
        assert_eq!(code(&o), 0, "{t}: {}", stderr(&o));
    }
}

#[test]
fn commands_are_deterministic() {
    let ex = example("cp_async_gemm_sm90.sk");
    for cmd in [&["fmt"][..], &["insert"], &["emit", "cuda"], &["verify"]] {
        let mut args = cmd.to_vec();
        args.push(&ex);
        let a = run(&args);
        let b = run(&args);
        assert_eq!(a.stdout, b.stdout, "{cmd:?}");
        assert_eq!(a.stderr, b.stderr, "{cmd:?}");
        assert_eq!(code(&a), code(&b));
    }
}

#[test]
fn verify_exit_codes() {
    let d = scratch("verify");
    let f = write(&d, "ok.sk", NO_RACE);
    let o = run(&["verify", &f]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("verified"));
    // The block reduction has no barriers yet: races, exit 1, located.
    let ex = example("block_reduction_gfx942.sk");
    let o = run(&["verify", &ex]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains(&format!("{ex}:16:22: error: race (RAW)")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn insert_exit_codes() {
    let d = scratch("insert");
    let f = write(&d, "k.sk", NO_RACE);
    let o = run(&["insert", &f]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), NO_RACE, "nothing to insert");
    let o = run(&["insert", "--pass", "nonsense", &f]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("unknown pass 'nonsense'"));
}

#[test]
fn run_and_emit_exit_codes() {
    let d = scratch("run");
    let f = write(&d, "k.sk", NO_RACE);
    let o = run(&["run", &f]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // One checksum line per thread: 4 waves of 64 on gfx950.
    assert_eq!(stdout(&o).lines().count(), 256);
    // CUDA needs an NVIDIA target: a program error on gfx950, fine on sm_90.
    assert_eq!(code(&run(&["emit", "cuda", &f])), 1);
    let o = run(&["emit", "cuda", "--target", "sm_90", &f]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Two kernels: run and emit take one.
    let two = write(&d, "two.sk", &format!("{NO_RACE}\nkernel @m {{\n}}\n"));
    assert_eq!(code(&run(&["run", &two])), 2);
    assert_eq!(code(&run(&["emit", "cuda", &two])), 2);
    assert_eq!(code(&run(&["emit", "ptx", &f])), 2, "unknown emit format");
}

#[test]
fn help_mentions_each_option() {
    let cases: &[(&str, &[&str])] = &[
        ("fmt", &["--check", "--output", "--target", "<FILE>"]),
        ("check", &["--target", "<FILE>"]),
        (
            "gen",
            &["--ops", "--seed", "--target", "--executable", "--output"],
        ),
        (
            "insert",
            &[
                "--pass",
                "--stats",
                "--explain",
                "--verify",
                "--named-barriers",
                "--no-double-buffer",
                "--reserved-ids",
                "--flag-ids",
                "--output",
                "--target",
            ],
        ),
        ("verify", &["--json", "--target"]),
        ("emit", &["cuda", "--output", "--target"]),
        ("run", &["--target"]),
    ];
    for (cmd, opts) in cases {
        let o = run(&[cmd, "--help"]);
        assert_eq!(code(&o), 0, "{cmd} --help");
        let h = stdout(&o);
        for opt in *opts {
            assert!(
                h.contains(opt),
                "'{cmd} --help' does not mention {opt}:\n{h}"
            );
        }
    }
    let o = run(&["--help"]);
    assert_eq!(code(&o), 0);
    for cmd in ["fmt", "check", "gen", "insert", "verify", "emit", "run"] {
        assert!(stdout(&o).contains(cmd));
    }
    // No arguments at all: help on stderr, usage error.
    assert_eq!(code(&run(&[])), 2);
}

fn run_stdin_env(args: &[&str], input: &[u8], env: &[(&str, &str)]) -> Output {
    let mut cmd = bin();
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("writes");
    child.wait_with_output().expect("waits")
}

#[test]
fn large_stdin_in_pieces_with_and_without_the_arena() {
    // Several 1 MiB reads, the arena growing the text in place, the prefault helper (from
    // 16 MiB of expected IR) and the phase timer on stderr: the bytes out stay the same.
    let g = run(&[
        "gen", "--ops", "60000", "--seed", "3", "--target", "gfx1250",
    ]);
    assert_eq!(code(&g), 0);
    assert!(g.stdout.len() > 2 << 20, "{} bytes", g.stdout.len());
    for env in [
        &[][..],
        &[("SYNCOPT_ARENA", "0")][..],
        &[("SYNCOPT_ARENA", "huge")][..],
        &[("SYNCOPT_PREFAULT", "0"), ("SYNCOPT_TIME", "1")][..],
    ] {
        let o = run_stdin_env(&["fmt", "-"], &g.stdout, env);
        assert_eq!(code(&o), 0, "{env:?}: {}", stderr(&o));
        assert!(
            o.stdout == g.stdout,
            "{env:?}: fmt changed the generated text"
        );
        let timed = env.iter().any(|(k, _)| *k == "SYNCOPT_TIME");
        assert_eq!(
            stderr(&o).contains("syncopt time: parse: "),
            timed,
            "{env:?}"
        );
    }
    let a = run_stdin_env(&["insert", "-"], &g.stdout, &[]);
    let b = run_stdin_env(&["insert", "-"], &g.stdout, &[("SYNCOPT_ARENA", "0")]);
    assert_eq!(code(&a), 0, "{}", stderr(&a));
    assert!(a.stdout == b.stdout && a.stderr == b.stderr);
}

#[test]
fn stdin_that_is_not_utf8_is_a_usage_error() {
    let o = run_stdin_env(&["fmt", "-"], b"kernel @k {\n\xff\n}\n", &[]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "syncopt: error: cannot read stdin: stream did not contain valid UTF-8\n"
    );
}
