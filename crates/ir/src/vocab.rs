//! The closed vocabularies of the IR: memory spaces, async counters, Ascend pipes, wave groups.
//! Each has one canonical spelling used by both the parser and the printer.

macro_rules! spelled_enum {
    ($(#[$m:meta])* $name:ident { $($var:ident = $s:expr),* $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($var),* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $s),* }
            }
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some($name::$var),)* _ => None }
            }
            /// The accepted spellings, for "expected one of" diagnostics.
            pub fn spellings() -> String {
                [$($s),*].join(", ")
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

spelled_enum! {
    /// Where a buffer lives. `workgroup` is AMD LDS / NVIDIA shared memory; the rest are Ascend's.
    Space {
        Workgroup = "workgroup",
        Global = "global",
        Gm = "gm",
        L1 = "l1",
        L0a = "l0a",
        L0b = "l0b",
        L0c = "l0c",
        Ub = "ub",
    }
}

impl Space {
    pub fn is_ascend(self) -> bool {
        !matches!(self, Space::Workgroup | Space::Global)
    }
}

spelled_enum! {
    /// Per-wave outstanding-operation counters (semantics.md 4.1).
    /// `cpasync` counts NVIDIA `cp.async` groups: one per `cp_async.commit`.
    Counter {
        Vmcnt = "vmcnt",
        Lgkmcnt = "lgkmcnt",
        Loadcnt = "loadcnt",
        Storecnt = "storecnt",
        Dscnt = "dscnt",
        Asynccnt = "asynccnt",
        Tensorcnt = "tensorcnt",
        CpAsync = "cpasync",
    }
}

spelled_enum! {
    /// Ascend AI-core pipes (semantics.md 4.2). `ALL` only appears in `pipe_barrier`.
    Pipe {
        S = "S",
        V = "V",
        M = "M",
        Mte1 = "MTE1",
        Mte2 = "MTE2",
        Mte3 = "MTE3",
        Fix = "FIX",
        All = "ALL",
    }
}

impl Pipe {
    /// Pipes an op can run on (everything but `ALL`).
    pub const REAL: &'static [Pipe] = &[
        Pipe::S,
        Pipe::V,
        Pipe::M,
        Pipe::Mte1,
        Pipe::Mte2,
        Pipe::Mte3,
        Pipe::Fix,
    ];
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

spelled_enum! {
    /// The two wave groups of a warp pipeline: `low` leads, `high` lags by the phase gap.
    Group {
        Low = "low",
        High = "high",
    }
}

spelled_enum! {
    /// How a memory operand is touched.
    AccessKind {
        Read = "read",
        Write = "write",
        Atomic = "atomic",
    }
}

impl AccessKind {
    pub fn writes(self) -> bool {
        !matches!(self, AccessKind::Read)
    }
}

spelled_enum! {
    /// Whether a condition has the same value in every wave of the workgroup.
    Uniformity {
        Uniform = "uniform",
        Divergent = "divergent",
    }
}
