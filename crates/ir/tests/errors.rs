//! One test per diagnostic the lexer and parser can give: the message and its line:col.

use syncopt_ir::parse;

/// Parses `src`, expects an error at `at` ("line:col") whose message contains `msg`.
fn expect_err(src: &str, at: &str, msg: &str) {
    let d = match parse(src) {
        Ok(_) => panic!("parsed without error:\n{src}"),
        Err(d) => d,
    };
    let loc = d.loc.expect("every parse error has a location");
    assert_eq!(loc.to_string(), at, "location of {:?}", d.message);
    assert!(
        d.message.contains(msg),
        "message {:?} does not contain {msg:?}",
        d.message
    );
    // The rendered form is `file:line:col: error: message`, then the line and a caret.
    let r = d.render("t.sk", src);
    assert!(r.starts_with(&format!("t.sk:{at}: error: ")), "{r}");
}

/// A kernel body wrapped around `body` (which starts on line 4, column 3).
fn k(body: &str) -> String {
    format!("target gfx950\n\nkernel @k(%n) {{\n  {body}\n}}\n")
}

macro_rules! err_test {
    ($name:ident, $src:expr, $at:expr, $msg:expr) => {
        #[test]
        fn $name() {
            expect_err(&$src, $at, $msg);
        }
    };
}

// ---- lexer ----
err_test!(
    lex_name_after_percent,
    k("op \"x\" read % "),
    "4:15",
    "expected a name after '%'"
);
err_test!(
    lex_name_after_at,
    "kernel @ {}",
    "1:8",
    "expected a name after '@'"
);
err_test!(
    lex_invalid_integer,
    k("%A = buffer workgroup 12ab"),
    "4:25",
    "invalid integer '12ab'"
);
err_test!(
    lex_integer_overflow,
    k("%A = buffer workgroup 99999999999999999999"),
    "4:25",
    "invalid integer"
);
err_test!(
    lex_unterminated_string,
    k("op \"ds_read"),
    "4:6",
    "unterminated string"
);
err_test!(
    lex_escape_in_string,
    k("op \"a\\nb\""),
    "4:8",
    "escapes are not allowed in op names"
);
err_test!(
    lex_unexpected_character,
    k("op \"x\" ; "),
    "4:10",
    "unexpected character ';'"
);
err_test!(
    lex_unexpected_unicode,
    "kernel @k { \u{00e9} }",
    "1:13",
    "unexpected character"
);

// ---- module and kernel ----
err_test!(
    expected_kernel,
    "target gfx950\nbuffer",
    "2:1",
    "expected 'kernel', found 'buffer'"
);
err_test!(
    target_without_name,
    "target 12",
    "1:8",
    "expected a target name"
);
err_test!(
    target_after_kernel,
    "kernel @a {\n}\ntarget gfx950\n",
    "3:1",
    "'target' must come before the first kernel of its chunk"
);
err_test!(
    kernel_without_name,
    "kernel k {}",
    "1:8",
    "expected a kernel name ('@name'), found 'k'"
);
err_test!(
    parameter_not_a_value,
    "kernel @k(n) {}",
    "1:11",
    "expected a parameter ('%name')"
);
err_test!(
    parameter_list_separator,
    "kernel @k(%a %b) {}",
    "1:14",
    "expected ','"
);
err_test!(
    parameter_default_not_int,
    "kernel @k(%a = %b) {}",
    "1:16",
    "expected a default value"
);
err_test!(
    waves_zero,
    "kernel @k waves 0 {}",
    "1:17",
    "waves must be between 1 and 64, got 0"
);
err_test!(
    waves_negative,
    "kernel @k waves -2 {}",
    "1:17",
    "a wave count must not be negative"
);
err_test!(
    kernel_missing_brace,
    "kernel @k\n",
    "2:1",
    "expected '{', found end of input"
);
err_test!(
    unclosed_block,
    "kernel @k {\n  op \"x\"\n",
    "3:1",
    "expected '}', found end of input"
);
err_test!(
    duplicate_name,
    k("%A = buffer workgroup 4\n  %A = buffer workgroup 8"),
    "5:3",
    "'%A' is already defined in this scope"
);
err_test!(
    undeclared_name,
    k("op \"x\" read %B"),
    "4:15",
    "use of undeclared name '%B'"
);
err_test!(
    integer_as_memory,
    k("op \"x\" read %n"),
    "4:15",
    "'%n' is an integer, but a buffer, view or handle is expected here"
);
err_test!(
    memory_as_integer,
    k("%A = buffer workgroup 64\n  op \"x\" read %A[%A]"),
    "5:18",
    "'%A' names memory, but an integer"
);
err_test!(
    yield_in_kernel_body,
    k("%A = buffer workgroup 64\n  yield %A"),
    "5:3",
    "'yield' outside a loop or an if"
);
err_test!(
    nesting_too_deep,
    k(&format!(
        "{}op \"x\"{}",
        "if uniform %n {\n".repeat(200),
        "}\n".repeat(200)
    )),
    "103:15",
    "nesting deeper than 100 levels"
);
err_test!(
    parens_too_deep,
    k(&format!(
        "%A = buffer workgroup 64\n  op \"x\" read %A[{}tid{}]",
        "(".repeat(150),
        ")".repeat(150)
    )),
    "5:117",
    "nesting deeper than 100 levels"
);

// ---- statements ----
err_test!(
    not_a_statement,
    k("12"),
    "4:3",
    "expected a statement (op, for, if, a sync op, a view or a buffer), found integer 12"
);
err_test!(
    unknown_statement,
    k("frobnicate"),
    "4:3",
    "unknown statement 'frobnicate'"
);
err_test!(
    bad_definition,
    k("%x = op \"y\""),
    "4:8",
    "expected 'buffer', 'view', 'for' or 'if' after '='"
);
err_test!(
    buffer_two_names,
    k("%a, %b = buffer workgroup 4"),
    "4:12",
    "a buffer defines exactly one name"
);
err_test!(
    view_two_names,
    k("%A = buffer workgroup 4\n  %a, %b = view %A[0:2]"),
    "5:12",
    "a view defines exactly one name"
);
err_test!(
    buffer_not_top_level,
    k("for %i = 0 to 2 {\n    %A = buffer workgroup 4\n  }"),
    "5:5",
    "buffers are declared at the top level of a kernel"
);

// ---- buffers ----
err_test!(
    unknown_space,
    k("%A = buffer lds 4"),
    "4:15",
    "unknown memory space 'lds'; expected one of workgroup, global"
);
err_test!(
    zero_size,
    k("%A = buffer workgroup 0"),
    "4:25",
    "a buffer must have a nonzero size"
);
err_test!(
    negative_size,
    k("%A = buffer workgroup -4"),
    "4:25",
    "a size in bytes must not be negative"
);
err_test!(
    aliases_not_buffer,
    k("%A = buffer workgroup 8\n  %v = view %A[0:4]\n  %B = buffer workgroup 4 aliases %v"),
    "6:35",
    "'%v' is not a buffer"
);
err_test!(
    at_undeclared,
    k("%B = buffer workgroup 4 at %Z + 4"),
    "4:30",
    "use of undeclared name '%Z'"
);
err_test!(
    at_offset_not_int,
    k("%A = buffer workgroup 8\n  %B = buffer workgroup 4 at %A + x"),
    "5:35",
    "expected a byte offset"
);

// ---- views ----
err_test!(
    view_empty_range,
    k("%A = buffer workgroup 8\n  %v = view %A[4:4]"),
    "5:18",
    "empty byte range [4:4]: the end must be after the start"
);
err_test!(
    view_neither_range_nor_slot,
    k("%A = buffer workgroup 8\n  %v = view %A mod 2"),
    "5:16",
    "expected '[' (a byte range) or 'slot'"
);
err_test!(
    slot_count_zero,
    k("%A = buffer workgroup 8\n  %v = view %A slot (0) mod 0"),
    "5:29",
    "slot count must be between 1 and 64, got 0"
);
err_test!(
    slot_without_mod,
    k("%A = buffer workgroup 8\n  %v = view %A slot (0) 2"),
    "5:25",
    "expected 'mod'"
);
err_test!(
    view_range_colon,
    k("%A = buffer workgroup 8\n  %v = view %A[0 4]"),
    "5:18",
    "expected ':'"
);

// ---- ops and effects ----
err_test!(
    op_without_name,
    k("op ds_read"),
    "4:6",
    "expected an op name in quotes"
);
err_test!(
    unknown_async_counter,
    k("op \"x\" async(foo)"),
    "4:16",
    "unknown counter 'foo'; expected one of vmcnt"
);
err_test!(
    unknown_pipe,
    k("op \"x\" pipe Q"),
    "4:15",
    "unknown pipe 'Q'; expected one of S, V, M"
);
err_test!(
    bad_access_kind,
    k("%A = buffer workgroup 8\n  op \"x\" read %A, poke %A"),
    "5:19",
    "expected read, write or atomic, found 'poke'"
);
err_test!(
    selector_empty_range,
    k("%A = buffer workgroup 8\n  op \"x\" read %A[6:2]"),
    "5:20",
    "empty byte range [6:2]"
);
err_test!(
    selector_unclosed,
    k("%A = buffer workgroup 8\n  op \"x\" read %A[tid"),
    "6:1",
    "expected ']'"
);
err_test!(
    expr_bad_atom,
    k("%A = buffer workgroup 8\n  op \"x\" read %A[tid + ]"),
    "5:24",
    "expected an integer, 'tid', '%name' or '('"
);
err_test!(
    expr_coefficient_not_const,
    k("%A = buffer workgroup 8\n  op \"x\" read %A[tid * tid]"),
    "5:24",
    "expected a constant coefficient"
);

// ---- loops ----
err_test!(
    for_bound_iv,
    k("for %i = 0 to 4 {\n    for %j = 0 to %i {\n    }\n  }"),
    "5:19",
    "loop bound '%i' must be a constant or a kernel parameter"
);
err_test!(
    for_bound_bad,
    k("for %i = 0 to {\n  }"),
    "4:17",
    "expected a loop bound (integer or parameter)"
);
err_test!(
    for_no_iv,
    k("for i = 0 to 4 {\n  }"),
    "4:7",
    "expected the induction variable ('%i')"
);
err_test!(for_no_to, k("for %i = 0 4 {\n  }"), "4:14", "expected 'to'");
err_test!(
    for_step_zero,
    k("for %i = 0 to 4 step 0 {\n  }"),
    "4:24",
    "step must be positive, got 0"
);
err_test!(
    for_max_below_min,
    k("for %i = 0 to %n min 4 max 2 {\n  }"),
    "4:30",
    "max trip count is below the min trip count"
);
err_test!(
    for_negative_max,
    k("for %i = 0 to %n max -1 {\n  }"),
    "4:24",
    "a maximum trip count must not be negative"
);
err_test!(
    for_yield_count,
    k("%A = buffer workgroup 8\n  for %i = 0 to 4 iter(%a = %A) {\n    yield %a, %a\n  }"),
    "6:5",
    "the loop carries 1 handle(s) but its body yields 2"
);
err_test!(
    for_missing_yield,
    k("%A = buffer workgroup 8\n  for %i = 0 to 4 iter(%a = %A) {\n  }"),
    "5:3",
    "the loop carries 1 handle(s) but its body yields 0"
);
err_test!(
    for_result_count,
    k("%A = buffer workgroup 8\n  %x, %y = for %i = 0 to 4 iter(%a = %A) {\n    yield %a\n  }"),
    "5:3",
    "the loop defines 2 result(s) but carries 1 handle(s)"
);
err_test!(
    iter_init_integer,
    k("for %i = 0 to 4 iter(%a = %n) {\n    yield %a\n  }"),
    "4:29",
    "'%n' is an integer"
);
err_test!(
    iter_unclosed,
    k("%A = buffer workgroup 8\n  for %i = 0 to 4 iter(%a = %A {\n  }"),
    "5:32",
    "expected ','"
);
err_test!(
    duplicate_handle,
    k("%A = buffer workgroup 8\n  for %i = 0 to 4 iter(%i = %A) {\n    yield %i\n  }"),
    "5:24",
    "'%i' is already defined in this scope"
);

// ---- ifs ----
err_test!(
    if_result_without_else,
    k("%A = buffer workgroup 8\n  %x = if uniform %n {\n    yield %A\n  }"),
    "5:3",
    "an if with results needs an else"
);
err_test!(
    if_yield_without_result,
    k("%A = buffer workgroup 8\n  if uniform %n {\n    yield %A\n  }"),
    "5:3",
    "the if defines 0 result(s)"
);
err_test!(
    if_modulus_zero,
    k("if uniform %n mod 0 == 1 {\n  }"),
    "4:21",
    "modulus must be positive"
);
err_test!(
    if_compare_not_int,
    k("if uniform %n < %n {\n  }"),
    "4:19",
    "expected an integer to compare with"
);
err_test!(
    if_no_cond,
    k("if uniform {\n  }"),
    "4:14",
    "expected an integer, 'tid', '%name' or '('"
);

// ---- sync ops ----
err_test!(
    barrier_id_too_big,
    k("barrier id 16"),
    "4:14",
    "a barrier id must be at most 15, got 16"
);
err_test!(
    barrier_threads_zero,
    k("barrier id 1 threads 0"),
    "4:24",
    "thread count must be between 1 and 4096"
);
err_test!(
    split_barrier_id,
    k("barrier.signal 0"),
    "4:18",
    "barrier id must be -1 or 1..16, got 0"
);
err_test!(
    split_barrier_id_missing,
    k("barrier.wait"),
    "5:1",
    "expected a barrier id (-1 for the workgroup barrier)"
);
err_test!(
    cond_barrier_group,
    k("cond_barrier middle"),
    "4:16",
    "expected 'low' or 'high', found 'middle'"
);
err_test!(
    wait_unknown_counter,
    k("wait foocnt(0)"),
    "4:8",
    "unknown counter 'foocnt'"
);
err_test!(
    wait_without_paren,
    k("wait vmcnt 0"),
    "4:14",
    "expected '('"
);
err_test!(
    wait_count_too_big,
    k("wait vmcnt(70000)"),
    "4:14",
    "a count must be at most 65536, got 70000"
);
err_test!(
    cp_async_wait_negative,
    k("cp_async.wait -1"),
    "4:17",
    "a group count must not be negative"
);
err_test!(
    set_flag_no_arrow,
    k("set_flag MTE2 V, 0"),
    "4:17",
    "expected '->'"
);
err_test!(
    set_flag_unknown_pipe,
    k("set_flag MTE9 -> V, 0"),
    "4:12",
    "unknown pipe 'MTE9'"
);
err_test!(
    flag_id_too_big,
    k("wait_flag MTE2 -> V, 300"),
    "4:24",
    "an event id must be at most 255, got 300"
);
err_test!(
    flag_alternate_modulus,
    k("set_flag MTE2 -> V, 2 + (%n) mod 17"),
    "4:36",
    "an alternating id's modulus must be between 1 and 16"
);
err_test!(
    flag_alternate_parens,
    k("set_flag MTE2 -> V, 2 + %n mod 2"),
    "4:27",
    "expected '('"
);
err_test!(
    pipe_barrier_pipe,
    k("pipe_barrier 3"),
    "4:16",
    "expected a pipe"
);
err_test!(
    setprio_too_big,
    k("setprio 4"),
    "4:11",
    "a priority (0..3) must be at most 3, got 4"
);
err_test!(
    sched_barrier_negative,
    k("sched_barrier -1"),
    "4:17",
    "a mask must not be negative"
);
err_test!(
    stage_prio_too_big,
    k("stage prio 9"),
    "4:14",
    "a priority (0..3) must be at most 3, got 9"
);
err_test!(
    stage_gap_too_big,
    k("stage gap 256"),
    "4:13",
    "a phase gap must be at most 255, got 256"
);

#[test]
fn chunks_report_independently() {
    // An error in one chunk does not hide the next chunk's, and each keeps its own line.
    let src =
        "target gfx950\nkernel @a {\n  op \"x\" read %Q\n}\n// -----\nkernel @b {\n  frob\n}\n";
    let res = syncopt_ir::parse_file(src);
    assert_eq!(res.len(), 2);
    let e0 = res[0].as_ref().unwrap_err();
    let e1 = res[1].as_ref().unwrap_err();
    assert_eq!(e0.loc.unwrap().to_string(), "3:15");
    assert_eq!(e1.loc.unwrap().to_string(), "7:3");
    assert!(e1.message.contains("unknown statement 'frob'"));
}

#[test]
fn duplicate_definition_notes_the_first() {
    let src = k("%A = buffer workgroup 4\n  %A = buffer workgroup 8");
    let d = parse(&src).unwrap_err();
    assert_eq!(d.notes.len(), 1);
    assert_eq!(d.notes[0].0.unwrap().to_string(), "4:3");
    assert!(d.notes[0].1.contains("previous definition"));
}

// Found by the fuzz test: the column of an escape counted bytes, not characters.
err_test!(
    escape_column_after_unicode,
    k("op \"\u{00e9}\u{00e9}\\n\""),
    "4:9",
    "escapes are not allowed in op names"
);
