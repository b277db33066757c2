//! Named split barriers (`--named-barriers`, sm_90 and gfx1250): a `barrier.wait ID` publishes
//! what the last `barrier.signal ID` of the same id armed, not what a signal of another id
//! armed in between. The wait for an async copy must go before the signal whose wait publishes
//! it, whatever its id (regression: sm_90 --named-barriers seed 94 of crates/barriers' long
//! campaign put `cp_async.wait` before `barrier.signal 2` while `barrier.wait 1` published it).

mod common;
use common::check;

#[test]
fn sm90_wait_goes_before_the_signal_of_the_id_that_publishes() {
    check(
        "target sm_90\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n\
         op \"cp_async\" async write %A, read %G\n  cp_async.commit\n\
         barrier.signal 1\n  op \"st_shared\" write %B\n  barrier.signal 2\n\
         barrier.wait 1\n  op \"ld_shared\" read %A\n  barrier.wait 2\n\
         op \"ld_shared\" read %B\n}\n",
        &[
            "op \"cp_async\" async write %A, read %G",
            "cp_async.commit",
            "cp_async.wait 0",
            "barrier.signal 1",
            "op \"st_shared\" write %B",
            "barrier.signal 2",
            "barrier.wait 1",
            "op \"ld_shared\" read %A",
            "barrier.wait 2",
            "op \"ld_shared\" read %B",
            "}",
        ],
    );
}

#[test]
fn gfx1250_named_ids_interleaved_each_copy_waited_before_its_own_signal() {
    // %A is published by id 2 (signalled last), %B by id 1: each wait goes before the signal
    // of the id whose wait precedes the consumer, with the largest N there.
    check(
        "target gfx1250\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         op \"tensor_load\" async write %A\n  barrier.signal 1\n\
         op \"tensor_load\" async write %B\n  barrier.signal 2\n\
         barrier.wait 1\n  barrier.wait 2\n  op \"ds_read\" read %A\n  op \"ds_read\" read %B\n}\n",
        &[
            "op \"tensor_load\" async write %A",
            "barrier.signal 1",
            "op \"tensor_load\" async write %B",
            "wait tensorcnt(0)",
            "barrier.signal 2",
            "barrier.wait 1",
            "barrier.wait 2",
            "op \"ds_read\" read %A",
            "op \"ds_read\" read %B",
            "}",
        ],
    );
}

#[test]
fn sm90_seed94_pattern_published_through_id_1_across_a_signal_2() {
    // The shape of the failing campaign kernel: the copy into %B is armed by `signal 1`, a
    // `signal 2` follows before `wait 1`, and the consumer comes after `wait 1` only.
    check(
        "target sm_90\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n\
         op \"cp_async\" async write %B, read %G\n  cp_async.commit\n  barrier.signal 1\n\
         op \"st_shared\" write %A\n  barrier.signal 2\n  barrier.wait 1\n\
         op \"cp_async\" async write %B, read %G\n  barrier.wait 2\n  op \"ld_shared\" read %A\n}\n",
        &[
            "op \"cp_async\" async write %B, read %G",
            "cp_async.commit",
            "cp_async.wait 0",
            "barrier.signal 1",
            "op \"st_shared\" write %A",
            "barrier.signal 2",
            "barrier.wait 1",
            "op \"cp_async\" async write %B, read %G",
            "barrier.wait 2",
            "op \"ld_shared\" read %A",
            "}",
        ],
    );
}
