//! Recursive-descent parser for the text format (docs/FORMAT.md).
//!
//! Names are resolved while parsing, with lexical block scopes, so an undeclared or misused
//! name is reported at its own line and column.
//!
//! Speed matters here (a million-statement kernel is 40 MB of text): the parser holds the
//! current token by value and moves comments aside as it advances, resolves names in one flat
//! table with an undo log per scope (one hash lookup per use, keys borrowed from the source),
//! collects each block's statements and each op's effects on shared stacks so that every list
//! is allocated once at its final size, and reserves the arenas from the input size.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::diag::Diagnostic;
use crate::expr::{AffineExpr, CmpOp, Cond, Var};
use crate::kernel::*;
use crate::lexer::{Lexer, Punct as P, Tok, Token};
use crate::sync::{FlagId, SyncOp};
use crate::vocab::{AccessKind, Counter, Group, Pipe, Space, Uniformity};

/// Parses a whole file. Chunks split by `// -----` are parsed independently: the result has
/// one entry per chunk, so one bad chunk does not hide the others' errors. A chunk without a
/// `target` line inherits the previous chunk's target.
pub fn parse_file(src: &str) -> Vec<Result<Module, Diagnostic>> {
    let mut lexer = Lexer::new(src);
    let mut out = Vec::new();
    let mut inherited: Option<String> = None;
    loop {
        let mut p = Parser {
            lex: lexer,
            cur: Token {
                tok: Tok::Eof,
                loc: Loc::default(),
            },
            ended: None,
            file_end: false,
            lex_err: None,
            names: Names::default(),
            undo: Vec::new(),
            scope_marks: Vec::new(),
            stmt_stack: Vec::new(),
            effect_stack: Vec::new(),
            kernel: None,
            pending: Vec::new(),
            depth: 0,
        };
        p.advance();
        let res = p.module();
        // Skip what an error left of the chunk, up to its `// -----` or the end of the file.
        while p.ended.is_none() {
            p.pull();
        }
        // A lexical error anywhere fails the whole file, as if it were lexed up front.
        if let Some(d) = p.lex_err.take() {
            return vec![Err(d)];
        }
        let file_end = p.file_end;
        lexer = p.lex;
        if let Ok(m) = &res {
            if m.target.is_some() {
                inherited = m.target.clone();
            }
        }
        out.push(res.map(|mut m| {
            if m.target.is_none() {
                m.target = inherited.clone();
            }
            m
        }));
        if file_end {
            return out;
        }
    }
}

/// Parses a file and merges its chunks; the first error stops it.
pub fn parse(src: &str) -> Result<File, Diagnostic> {
    let mut file = File::default();
    for chunk in parse_file(src) {
        file.chunks.push(chunk?);
    }
    Ok(file)
}

type PResult<T> = Result<T, Diagnostic>;

/// Every name in scope, with the depth of the scope that declared it. Inner declarations
/// shadow outer ones; the undo log puts the outer binding back when the inner scope closes.
type Names<'a> = HashMap<&'a str, (ValueId, u32), BuildHasherDefault<NameHasher>>;

/// A multiplicative hash over 8-byte words: names are short and not attacker-chosen in a way
/// that matters (a slow lookup is the worst case), and SipHash showed up in parse profiles.
#[derive(Default)]
struct NameHasher(u64);

impl NameHasher {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
}

struct Parser<'a> {
    lex: Lexer<'a>,
    /// The current token (never a comment: comments move to `pending` as the parser advances).
    cur: Token<'a>,
    /// Where this chunk ends (its `// -----`, the end of the file, or a lexical error): from
    /// there on the parser sees `Eof`.
    ended: Option<Loc>,
    /// The chunk ended at the end of the file.
    file_end: bool,
    lex_err: Option<Diagnostic>,
    names: Names<'a>,
    /// Bindings replaced by declarations of the open scopes: `(name, previous binding)`.
    undo: Vec<(&'a str, Option<(ValueId, u32)>)>,
    /// Length of `undo` when each open scope began; its length is the current depth.
    scope_marks: Vec<usize>,
    /// Statements of the open blocks, innermost last; a block takes its own when it closes.
    stmt_stack: Vec<StmtId>,
    /// Effects of the op being parsed.
    effect_stack: Vec<Effect>,
    kernel: Option<Kernel>,
    /// Comments read but not yet attached to the next item.
    pending: Vec<&'a str>,
    /// Open blocks and parentheses: bounded, so hostile input cannot overflow the stack.
    depth: u32,
}

/// Deepest nesting of blocks and parentheses accepted; real kernels nest a handful deep.
pub const MAX_NESTING: u32 = 100;

impl<'a> Parser<'a> {
    /// Reads one more raw token from the lexer (comments included).
    #[inline(always)]
    fn pull(&mut self) -> Token<'a> {
        if self.ended.is_some() {
            return self.end_token();
        }
        let t = self.lex.scan();
        match t.tok {
            Tok::Split | Tok::Eof => self.chunk_end(t),
            _ => t,
        }
    }
    #[cold]
    fn end_token(&self) -> Token<'a> {
        Token {
            tok: Tok::Eof,
            loc: self.ended.unwrap_or_default(),
        }
    }
    /// The chunk ends at `t`: a `// -----`, the end of the file or a lexical error.
    #[cold]
    fn chunk_end(&mut self, t: Token<'a>) -> Token<'a> {
        if let Some(d) = self.lex.take_error() {
            let loc = d.loc.unwrap_or_default();
            self.lex_err = Some(d);
            self.file_end = true;
            self.ended = Some(loc);
            return Token { tok: Tok::Eof, loc };
        }
        self.file_end = t.tok == Tok::Eof;
        self.ended = Some(t.loc);
        Token {
            tok: Tok::Eof,
            loc: t.loc,
        }
    }
    /// Makes the next non-comment token current; comments on the way wait in `pending`.
    /// The grammar needs no lookahead beyond the current token. One out-of-line copy: the
    /// lexer is inlined here, and inlining that into every caller bloats them.
    #[inline(never)]
    fn advance(&mut self) {
        loop {
            let t = self.pull();
            if let Tok::Comment(c) = t.tok {
                self.pending.push(c);
                continue;
            }
            self.cur = t;
            return;
        }
    }
    #[inline]
    fn peek(&self) -> Tok<'a> {
        self.cur.tok
    }
    #[inline]
    fn loc(&self) -> Loc {
        self.cur.loc
    }
    fn take_comments(&mut self) -> Vec<String> {
        if self.pending.is_empty() {
            return Vec::new();
        }
        self.pending.drain(..).map(str::to_string).collect()
    }
    #[inline]
    fn bump(&mut self) {
        self.take();
    }
    /// Moves the current token out and advances; `Eof` stays put.
    #[inline]
    fn take(&mut self) -> Tok<'a> {
        let t = self.cur.tok;
        if !matches!(t, Tok::Eof) {
            self.advance();
        }
        t
    }
    #[cold]
    fn err<T>(&mut self, expected: &str) -> PResult<T> {
        let loc = self.loc();
        let found = self.peek().describe();
        Err(Diagnostic::error(
            Some(loc),
            format!("expected {expected}, found {found}"),
        ))
    }
    #[inline]
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x == w)
    }
    #[inline]
    fn is_punct(&self, p: P) -> bool {
        matches!(self.peek(), Tok::Punct(x) if x == p)
    }
    #[inline]
    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }
    #[inline]
    fn eat_punct(&mut self, p: P) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect_word(&mut self, w: &str) -> PResult<Loc> {
        let loc = self.loc();
        if self.eat_word(w) {
            Ok(loc)
        } else {
            self.err(&format!("'{w}'"))
        }
    }
    #[inline]
    fn expect_punct(&mut self, p: P) -> PResult<Loc> {
        let loc = self.loc();
        if self.eat_punct(p) {
            Ok(loc)
        } else {
            self.err(&format!("'{p}'"))
        }
    }
    fn word(&mut self, what: &str) -> PResult<(&'a str, Loc)> {
        let loc = self.loc();
        match self.peek() {
            Tok::Word(w) => {
                self.bump();
                Ok((w, loc))
            }
            _ => self.err(what),
        }
    }
    fn int(&mut self, what: &str) -> PResult<(i64, Loc)> {
        let loc = self.loc();
        let neg = self.eat_punct(P::Minus);
        match self.peek() {
            Tok::Int(i) => {
                self.bump();
                Ok((if neg { -i } else { i }, loc))
            }
            _ => self.err(what),
        }
    }
    fn uint(&mut self, what: &str) -> PResult<(u64, Loc)> {
        let (v, loc) = self.int(what)?;
        u64::try_from(v)
            .map(|u| (u, loc))
            .map_err(|_| Diagnostic::error(Some(loc), format!("{what} must not be negative")))
    }
    fn small(&mut self, what: &str, max: u64) -> PResult<(u64, Loc)> {
        let (v, loc) = self.uint(what)?;
        if v > max {
            return Err(Diagnostic::error(
                Some(loc),
                format!("{what} must be at most {max}, got {v}"),
            ));
        }
        Ok((v, loc))
    }
    #[inline]
    fn k(&mut self) -> &mut Kernel {
        self.kernel.as_mut().expect("inside a kernel")
    }

    // ---- names ----

    fn open_scope(&mut self) {
        self.scope_marks.push(self.undo.len());
    }
    fn close_scope(&mut self) {
        let mark = self.scope_marks.pop().expect("open scope");
        while self.undo.len() > mark {
            let (name, prev) = self.undo.pop().expect("above the mark");
            match prev {
                Some(b) => {
                    self.names.insert(name, b);
                }
                None => {
                    self.names.remove(name);
                }
            }
        }
    }
    fn declare(&mut self, name: &'a str, loc: Loc, kind: ValueKind) -> PResult<ValueId> {
        let depth = self.scope_marks.len() as u32;
        let kernel = self.kernel.as_mut().expect("inside a kernel");
        let v = kernel.values.next_id();
        // One hash per declaration: the entry both checks and binds.
        let prev = match self.names.entry(name) {
            Entry::Occupied(mut e) => {
                let (prev, d) = *e.get();
                if d == depth {
                    let prev_loc = kernel.values[prev].loc;
                    let mut d = Diagnostic::error(
                        Some(loc),
                        format!("'%{name}' is already defined in this scope"),
                    );
                    if prev_loc.is_some() {
                        d = d.with_note(prev_loc, "previous definition is here");
                    }
                    return Err(d);
                }
                Some(e.insert((v, depth)))
            }
            Entry::Vacant(e) => {
                e.insert((v, depth));
                None
            }
        };
        kernel.values.push(ValueData {
            name: name.to_string(),
            kind,
            loc: Some(loc),
        });
        self.undo.push((name, prev));
        Ok(v)
    }
    #[inline]
    fn lookup(&mut self, name: &str, loc: Loc) -> PResult<ValueId> {
        match self.names.get(name) {
            Some(&(v, _)) => Ok(v),
            None => Err(Diagnostic::error(
                Some(loc),
                format!("use of undeclared name '%{name}'"),
            )),
        }
    }
    /// A `%name` (borrowed from the source).
    fn value_name(&mut self, what: &str) -> PResult<(&'a str, Loc)> {
        let loc = self.loc();
        match self.peek() {
            Tok::Value(v) => {
                self.bump();
                Ok((v, loc))
            }
            _ => self.err(what),
        }
    }
    fn memory_value(&mut self) -> PResult<ValueId> {
        let (name, loc) = self.value_name("a buffer, view or handle ('%name')")?;
        let v = self.lookup(name, loc)?;
        if !self.k().values[v].kind.is_memory() {
            return Err(Diagnostic::error(
                Some(loc),
                format!("'%{name}' is an integer, but a buffer, view or handle is expected here"),
            ));
        }
        Ok(v)
    }
    fn integer_value(&mut self, name: &str, loc: Loc) -> PResult<ValueId> {
        let v = self.lookup(name, loc)?;
        if !self.k().values[v].kind.is_integer() {
            return Err(Diagnostic::error(
                Some(loc),
                format!("'%{name}' names memory, but an integer (parameter or loop variable) is expected here"),
            ));
        }
        Ok(v)
    }

    // ---- module and kernel ----

    fn module(&mut self) -> PResult<Module> {
        let mut m = Module::default();
        if self.is_word("target") {
            m.comments = self.take_comments();
            self.bump();
            let (t, loc) = self.word("a target name (e.g. gfx950, sm_90, ascend910b)")?;
            m.target = Some(t.to_string());
            m.target_loc = Some(loc);
        }
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Word("kernel") => {
                    let comments = self.take_comments();
                    if m.kernels.is_empty() && m.target.is_none() && m.comments.is_empty() {
                        m.comments = comments;
                        let k = self.kernel(Vec::new())?;
                        m.kernels.push(k);
                    } else {
                        let k = self.kernel(comments)?;
                        m.kernels.push(k);
                    }
                }
                Tok::Word("target") => {
                    let loc = self.loc();
                    return Err(Diagnostic::error(
                        Some(loc),
                        "'target' must come before the first kernel of its chunk",
                    ));
                }
                _ => return self.err("'kernel'"),
            }
        }
        m.trailing_comments = self.take_comments();
        Ok(m)
    }

    fn kernel(&mut self, comments: Vec<String>) -> PResult<Kernel> {
        let loc = self.expect_word("kernel")?;
        let name = match self.peek() {
            Tok::Symbol(s) => {
                self.bump();
                s
            }
            _ => return self.err("a kernel name ('@name')"),
        };
        let mut k = Kernel::new(name, loc);
        // Generated and real kernels spend 35-50 bytes of text per statement. Reserving for
        // the rest of the input saves regrowing (and copying) the arenas of large kernels;
        // erring high costs only address space, as pages never written are never touched.
        let hint = self.lex.remaining() / 32;
        // Statements get room for the sync ops `insert` adds too (a third more at 1M generated
        // statements): regrowing a 170 MB statement table out of the CLI's parse arena cost
        // the barrier pass 0.3-0.5 s of copying and page faults.
        k.stmts.reserve(hint + hint / 2);
        k.values.reserve(hint / 4);
        k.blocks.reserve(hint / 3);
        k.comments = comments;
        self.kernel = Some(k);
        self.names.clear();
        self.undo.clear();
        self.scope_marks.clear();
        self.stmt_stack.clear();
        self.open_scope();
        if self.eat_punct(P::LParen) && !self.eat_punct(P::RParen) {
            loop {
                let (pname, ploc) = self.value_name("a parameter ('%name')")?;
                let default = if self.eat_punct(P::Eq) {
                    Some(self.int("a default value")?.0)
                } else {
                    None
                };
                let v = self.declare(pname, ploc, ValueKind::Param { default })?;
                self.k().params.push(v);
                if self.eat_punct(P::RParen) {
                    break;
                }
                self.expect_punct(P::Comma)?;
            }
        }
        if self.eat_word("waves") {
            let (w, wloc) = self.uint("a wave count")?;
            if w == 0 || w > 64 {
                return Err(Diagnostic::error(
                    Some(wloc),
                    format!("waves must be between 1 and 64, got {w}"),
                ));
            }
            self.k().waves = Some(w as u32);
        }
        let body = self.k().body;
        self.block_contents(body)?;
        if let Some(yl) = self.k().blocks[body].yield_loc {
            return Err(Diagnostic::error(
                Some(yl),
                "'yield' outside a loop or an if: the kernel body has nothing to yield to",
            ));
        }
        self.close_scope();
        Ok(self.kernel.take().expect("kernel"))
    }

    /// Parses `{ stmt* [yield ...] }` into an existing block, in a new scope.
    fn block_contents(&mut self, block: BlockId) -> PResult<()> {
        let open = self.expect_punct(P::LBrace)?;
        self.enter(open)?;
        self.open_scope();
        let first = self.stmt_stack.len();
        loop {
            if self.is_punct(P::RBrace) {
                let c = self.take_comments();
                self.k().blocks[block].trailing_comments = c;
                self.bump();
                break;
            }
            if self.is_word("yield") {
                let c = self.take_comments();
                let yloc = self.loc();
                self.bump();
                let mut vals = Vec::new();
                loop {
                    vals.push(self.memory_value()?);
                    if !self.eat_punct(P::Comma) {
                        break;
                    }
                }
                let b = &mut self.k().blocks[block];
                b.yields = vals;
                b.yield_loc = Some(yloc);
                b.trailing_comments = c;
                let tail = self.take_comments();
                self.k().blocks[block].trailing_comments.extend(tail);
                self.expect_punct(P::RBrace)?;
                break;
            }
            if matches!(self.peek(), Tok::Eof) {
                return self.err("'}'");
            }
            self.stmt(block)?;
        }
        // Allocated once, at its final size.
        let stmts = self.stmt_stack[first..].to_vec();
        self.stmt_stack.truncate(first);
        self.k().blocks[block].stmts = stmts;
        self.close_scope();
        self.depth -= 1;
        Ok(())
    }

    fn enter(&mut self, loc: Loc) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Diagnostic::error(
                Some(loc),
                format!("nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        Ok(())
    }

    /// Adds a statement to the innermost open block (its statements wait on `stmt_stack`
    /// until it closes).
    fn push(&mut self, kind: StmtKind, loc: Loc, comments: Vec<String>) -> StmtId {
        let s = self.k().stmts.push(StmtData {
            kind,
            loc: Some(loc),
            inserted: false,
            comments,
        });
        self.stmt_stack.push(s);
        s
    }

    /// Allocates a statement id before its nested blocks are parsed (they refer to it).
    fn reserve(&mut self, loc: Loc) -> StmtId {
        self.k().stmts.push(StmtData {
            kind: StmtKind::StageEnd,
            loc: Some(loc),
            inserted: false,
            comments: Vec::new(),
        })
    }
    fn place(&mut self, stmt: StmtId, kind: StmtKind, comments: Vec<String>) {
        let k = self.k();
        k.stmts[stmt].kind = kind;
        k.stmts[stmt].comments = comments;
        self.stmt_stack.push(stmt);
    }

    fn stmt(&mut self, block: BlockId) -> PResult<()> {
        let comments = self.take_comments();
        let loc = self.loc();
        // `%x = ...` and `%x, %y = ...` forms.
        if let Tok::Value(_) = self.peek() {
            let mut names = Vec::new();
            loop {
                names.push(self.value_name("a name")?);
                if !self.eat_punct(P::Comma) {
                    break;
                }
            }
            self.expect_punct(P::Eq)?;
            let kw_loc = self.loc();
            let single = |what: &str| -> PResult<(&'a str, Loc)> {
                if names.len() != 1 {
                    return Err(Diagnostic::error(
                        Some(kw_loc),
                        format!("{what} defines exactly one name"),
                    ));
                }
                Ok(names[0])
            };
            if self.is_word("buffer") {
                let n = single("a buffer")?;
                if block != self.k().body {
                    return Err(Diagnostic::error(
                        Some(loc),
                        "buffers are declared at the top level of a kernel",
                    ));
                }
                return self.buffer(n, comments);
            }
            if self.is_word("view") {
                let n = single("a view")?;
                return self.view(n, loc, comments);
            }
            if self.is_word("for") {
                return self.for_stmt(names, loc, comments);
            }
            if self.is_word("if") {
                return self.if_stmt(names, loc, comments);
            }
            return self.err("'buffer', 'view', 'for' or 'if' after '='");
        }
        // Classify without cloning the word: this runs once per statement.
        let w: &'static str = match self.peek() {
            Tok::Word(w) => match w {
                "op" => "op",
                "for" => "for",
                "if" => "if",
                "stage" => "stage",
                "stage.end" => "stage.end",
                _ => "",
            },
            _ => return self.err("a statement (op, for, if, a sync op, a view or a buffer)"),
        };
        match w {
            "op" => {
                let op = self.op()?;
                self.push(StmtKind::Op(op), loc, comments);
            }
            "for" => self.for_stmt(Vec::new(), loc, comments)?,
            "if" => self.if_stmt(Vec::new(), loc, comments)?,
            "stage" => {
                self.bump();
                let mut st = StageData::default();
                loop {
                    if self.eat_word("prio") {
                        st.prio = Some(self.small("a priority (0..3)", 3)?.0 as u8);
                    } else if self.eat_word("gap") {
                        st.gap = Some(self.small("a phase gap", 255)?.0 as u8);
                    } else {
                        break;
                    }
                }
                self.push(StmtKind::Stage(st), loc, comments);
            }
            "stage.end" => {
                self.bump();
                self.push(StmtKind::StageEnd, loc, comments);
            }
            _ => {
                let s = self.sync_op()?;
                self.push(StmtKind::Sync(s), loc, comments);
            }
        }
        Ok(())
    }

    fn buffer(&mut self, (name, nloc): (&'a str, Loc), comments: Vec<String>) -> PResult<()> {
        self.expect_word("buffer")?;
        let (sp, sloc) = self.word("a memory space")?;
        let space = Space::parse(sp).ok_or_else(|| {
            Diagnostic::error(
                Some(sloc),
                format!(
                    "unknown memory space '{sp}'; expected one of {}",
                    Space::spellings()
                ),
            )
        })?;
        let (size, szloc) = self.uint("a size in bytes")?;
        if size == 0 {
            return Err(Diagnostic::error(
                Some(szloc),
                "a buffer must have a nonzero size",
            ));
        }
        let placement = if self.eat_word("aliases") {
            let (bn, bloc) = self.value_name("the buffer it aliases")?;
            Placement::Aliases(self.buffer_ref(bn, bloc)?)
        } else if self.eat_word("at") {
            let (bn, bloc) = self.value_name("the buffer it is placed in")?;
            let base = self.buffer_ref(bn, bloc)?;
            let offset = if self.eat_punct(P::Plus) {
                self.uint("a byte offset")?.0
            } else {
                0
            };
            Placement::At { base, offset }
        } else {
            Placement::Own
        };
        let id = self.k().buffers.next_id();
        let v = self.declare(name, nloc, ValueKind::Buffer(id))?;
        self.k().buffers.push(BufferData {
            value: v,
            comments,
            space,
            size,
            placement,
        });
        Ok(())
    }

    fn buffer_ref(&mut self, name: &str, loc: Loc) -> PResult<ValueId> {
        let v = self.lookup(name, loc)?;
        match self.k().values[v].kind {
            ValueKind::Buffer(_) => Ok(v),
            _ => Err(Diagnostic::error(
                Some(loc),
                format!("'%{name}' is not a buffer"),
            )),
        }
    }

    fn view(
        &mut self,
        (name, nloc): (&'a str, Loc),
        loc: Loc,
        comments: Vec<String>,
    ) -> PResult<()> {
        self.expect_word("view")?;
        let base = self.memory_value()?;
        let kind = if self.eat_punct(P::LBracket) {
            let (lo, _) = self.uint("a start byte")?;
            self.expect_punct(P::Colon)?;
            let (hi, hloc) = self.uint("an end byte")?;
            self.expect_punct(P::RBracket)?;
            if hi <= lo {
                return Err(Diagnostic::error(
                    Some(hloc),
                    format!("empty byte range [{lo}:{hi}]: the end must be after the start"),
                ));
            }
            ViewKind::Range { lo, hi }
        } else if self.eat_word("slot") {
            self.expect_punct(P::LParen)?;
            let index = self.expr()?;
            self.expect_punct(P::RParen)?;
            self.expect_word("mod")?;
            let (n, nl) = self.uint("a slot count")?;
            if n == 0 || n > 64 {
                return Err(Diagnostic::error(
                    Some(nl),
                    format!("slot count must be between 1 and 64, got {n}"),
                ));
            }
            ViewKind::Slot {
                count: n as u32,
                index,
            }
        } else {
            return self.err("'[' (a byte range) or 'slot'");
        };
        let id = self.k().views.next_id();
        let v = self.declare(name, nloc, ValueKind::View(id))?;
        self.k().views.push(ViewData {
            value: v,
            base,
            kind,
        });
        self.push(StmtKind::View(id), loc, comments);
        Ok(())
    }

    fn op(&mut self) -> PResult<OpData> {
        self.expect_word("op")?;
        let name = match self.peek() {
            Tok::Str(s) => {
                self.bump();
                s
            }
            _ => return self.err("an op name in quotes"),
        };
        let mut op = OpData {
            name: name.to_string(),
            effects: Vec::new(),
            asynchronous: None,
            pipe: None,
        };
        loop {
            if self.eat_word("async") {
                let mut counter = None;
                if self.eat_punct(P::LParen) {
                    let (c, cl) = self.word("a counter")?;
                    counter = Some(Counter::parse(c).ok_or_else(|| {
                        Diagnostic::error(
                            Some(cl),
                            format!(
                                "unknown counter '{c}'; expected one of {}",
                                Counter::spellings()
                            ),
                        )
                    })?);
                    self.expect_punct(P::RParen)?;
                }
                op.asynchronous = Some(AsyncSpec { counter });
            } else if self.eat_word("pipe") {
                op.pipe = Some(self.pipe()?);
            } else {
                break;
            }
        }
        let starts_effect = |t: Tok| matches!(t, Tok::Word(w) if AccessKind::parse(w).is_some());
        if starts_effect(self.peek()) {
            // Collected on a shared stack so the op's list is allocated once, at its size.
            self.effect_stack.clear();
            loop {
                let (kw, kloc) = self.word("read, write or atomic")?;
                let kind = AccessKind::parse(kw).ok_or_else(|| {
                    Diagnostic::error(
                        Some(kloc),
                        format!("expected read, write or atomic, found '{kw}'"),
                    )
                })?;
                let value = self.memory_value()?;
                let sel = self.selector()?;
                self.effect_stack.push(Effect {
                    kind,
                    mem: MemRef { value, sel },
                    loc: Some(kloc),
                });
                if !self.eat_punct(P::Comma) {
                    break;
                }
            }
            op.effects = Vec::with_capacity(self.effect_stack.len());
            op.effects.append(&mut self.effect_stack);
        }
        Ok(op)
    }

    fn selector(&mut self) -> PResult<Selector> {
        if !self.eat_punct(P::LBracket) {
            return Ok(Selector::Whole);
        }
        // `[lo:hi]` is a byte range, anything else a per-thread word index. An index that
        // starts with an integer goes on from that integer as its first term.
        let sel = if let Tok::Int(c) = self.peek() {
            self.bump();
            if self.eat_punct(P::Colon) {
                // The lexer gives no negative integers.
                let lo = c as u64;
                let (hi, hl) = self.uint("an end byte")?;
                if hi <= lo {
                    return Err(Diagnostic::error(
                        Some(hl),
                        format!("empty byte range [{lo}:{hi}]: the end must be after the start"),
                    ));
                }
                Selector::Bytes { lo, hi }
            } else {
                let first = self.int_term(c)?;
                Selector::Index(self.expr_rest(first, 1)?)
            }
        } else {
            Selector::Index(self.expr()?)
        };
        self.expect_punct(P::RBracket)?;
        Ok(sel)
    }

    fn pipe(&mut self) -> PResult<Pipe> {
        let (p, pl) = self.word("a pipe")?;
        Pipe::parse(p).ok_or_else(|| {
            Diagnostic::error(
                Some(pl),
                format!("unknown pipe '{p}'; expected one of {}", Pipe::spellings()),
            )
        })
    }

    fn bound(&mut self) -> PResult<Bound> {
        if let Tok::Value(_) = self.peek() {
            let (n, l) = self.value_name("a bound")?;
            let v = self.integer_value(n, l)?;
            if !matches!(self.k().values[v].kind, ValueKind::Param { .. }) {
                return Err(Diagnostic::error(
                    Some(l),
                    format!("loop bound '%{n}' must be a constant or a kernel parameter"),
                ));
            }
            return Ok(Bound::Value(v));
        }
        Ok(Bound::Const(
            self.int("a loop bound (integer or parameter)")?.0,
        ))
    }

    fn for_stmt(
        &mut self,
        results: Vec<(&'a str, Loc)>,
        loc: Loc,
        comments: Vec<String>,
    ) -> PResult<()> {
        self.expect_word("for")?;
        let (ivn, ivl) = self.value_name("the induction variable ('%i')")?;
        self.expect_punct(P::Eq)?;
        let lo = self.bound()?;
        self.expect_word("to")?;
        let hi = self.bound()?;
        let mut step = 1;
        if self.eat_word("step") {
            let (s, sl) = self.int("a step")?;
            if s <= 0 {
                return Err(Diagnostic::error(
                    Some(sl),
                    format!("step must be positive, got {s}"),
                ));
            }
            step = s;
        }
        let mut min_trips = None;
        let mut max_trips = None;
        if self.eat_word("min") {
            min_trips = Some(self.uint("a minimum trip count")?.0);
        }
        if self.eat_word("max") {
            let (m, ml) = self.uint("a maximum trip count")?;
            if min_trips.is_some_and(|mn| mn > m) {
                return Err(Diagnostic::error(
                    Some(ml),
                    "max trip count is below the min trip count",
                ));
            }
            max_trips = Some(m);
        }
        // Resolve iter inits in the enclosing scope before opening the body's.
        let mut iters: Vec<((&'a str, Loc), ValueId)> = Vec::new();
        if self.eat_word("iter") {
            self.expect_punct(P::LParen)?;
            loop {
                let n = self.value_name("a loop-carried handle ('%cur')")?;
                self.expect_punct(P::Eq)?;
                let init = self.memory_value()?;
                iters.push((n, init));
                if self.eat_punct(P::RParen) {
                    break;
                }
                self.expect_punct(P::Comma)?;
            }
        }
        let stmt = self.reserve(loc);
        let body = self.k().new_block(Some(stmt));
        self.open_scope();
        let iv = self.declare(ivn, ivl, ValueKind::Iv(stmt))?;
        let mut iter_args = Vec::new();
        for (i, ((n, l), init)) in iters.into_iter().enumerate() {
            let v = self.declare(n, l, ValueKind::IterArg { stmt, index: i })?;
            iter_args.push((v, init));
        }
        self.block_contents(body)?;
        self.close_scope();
        let nyield = self.k().blocks[body].yields.len();
        if nyield != iter_args.len() {
            let yl = self.k().blocks[body].yield_loc.unwrap_or(loc);
            return Err(Diagnostic::error(
                Some(yl),
                format!(
                    "the loop carries {} handle(s) but its body yields {nyield}",
                    iter_args.len()
                ),
            ));
        }
        if !results.is_empty() && results.len() != iter_args.len() {
            return Err(Diagnostic::error(
                Some(results[0].1),
                format!(
                    "the loop defines {} result(s) but carries {} handle(s)",
                    results.len(),
                    iter_args.len()
                ),
            ));
        }
        let mut res = Vec::new();
        for (i, (n, l)) in results.into_iter().enumerate() {
            res.push(self.declare(n, l, ValueKind::Result { stmt, index: i })?);
        }
        let data = ForData {
            iv,
            lo,
            hi,
            step,
            min_trips,
            max_trips,
            iter_args,
            results: res,
            body,
        };
        self.place(stmt, StmtKind::For(data), comments);
        Ok(())
    }

    fn if_stmt(
        &mut self,
        results: Vec<(&'a str, Loc)>,
        loc: Loc,
        comments: Vec<String>,
    ) -> PResult<()> {
        self.expect_word("if")?;
        // Semantics: a condition not stated uniform is divergent.
        let uniformity = if self.eat_word("uniform") {
            Uniformity::Uniform
        } else {
            self.eat_word("divergent");
            Uniformity::Divergent
        };
        let cond = self.cond()?;
        let stmt = self.reserve(loc);
        let then_block = self.k().new_block(Some(stmt));
        self.block_contents(then_block)?;
        let else_block = if self.eat_word("else") {
            let b = self.k().new_block(Some(stmt));
            self.block_contents(b)?;
            Some(b)
        } else {
            None
        };
        let ty = self.k().blocks[then_block].yields.len();
        let ey = else_block.map_or(0, |b| self.k().blocks[b].yields.len());
        if results.len() != ty
            || (!results.is_empty() && (else_block.is_none() || ey != ty))
            || (results.is_empty() && ey != 0)
        {
            return Err(Diagnostic::error(
                Some(loc),
                format!(
                    "the if defines {} result(s); each branch must yield that many (then yields {ty}, else yields {ey}{})",
                    results.len(),
                    if else_block.is_none() && !results.is_empty() { ", and an if with results needs an else" } else { "" }
                ),
            ));
        }
        let mut res = Vec::new();
        for (i, (n, l)) in results.into_iter().enumerate() {
            res.push(self.declare(n, l, ValueKind::Result { stmt, index: i })?);
        }
        let data = IfData {
            cond,
            uniformity,
            then_block,
            else_block,
            results: res,
        };
        self.place(stmt, StmtKind::If(data), comments);
        Ok(())
    }

    fn cond(&mut self) -> PResult<Cond> {
        let expr = self.expr()?;
        let modulo = if self.eat_word("mod") {
            let (m, ml) = self.int("a modulus")?;
            if m <= 0 {
                return Err(Diagnostic::error(Some(ml), "modulus must be positive"));
            }
            Some(m)
        } else {
            None
        };
        let ops = [
            (P::Lt, CmpOp::Lt),
            (P::Le, CmpOp::Le),
            (P::EqEq, CmpOp::Eq),
            (P::Ne, CmpOp::Ne),
            (P::Ge, CmpOp::Ge),
            (P::Gt, CmpOp::Gt),
        ];
        for (p, op) in ops {
            if self.eat_punct(p) {
                let (rhs, _) = self.int("an integer to compare with")?;
                return Ok(Cond {
                    expr,
                    modulo,
                    cmp: Some((op, rhs)),
                });
            }
        }
        Ok(Cond {
            expr,
            modulo,
            cmp: None,
        })
    }

    /// `term (('+' | '-') term)*`, each term `INT`, `INT * atom`, `atom`, or `atom * INT`,
    /// with atoms `tid`, `%name` or a parenthesized expression.
    fn expr(&mut self) -> PResult<AffineExpr> {
        let sign: i64 = if self.eat_punct(P::Minus) { -1 } else { 1 };
        let first = self.term()?;
        self.expr_rest(first, sign)
    }

    /// The rest of an expression whose first term `t` (with its sign) is parsed.
    fn expr_rest(&mut self, mut t: Term, mut sign: i64) -> PResult<AffineExpr> {
        let mut e = AffineExpr::default();
        loop {
            // Constants and single variables (nearly every term) go straight into `e`,
            // without an expression of their own.
            match t {
                Term::Const(c) => e.constant = e.constant.wrapping_add(c.wrapping_mul(sign)),
                Term::Var(v, c) => {
                    if c != 0 {
                        e.add_term(v, c.wrapping_mul(sign));
                    }
                }
                Term::Expr(t) => {
                    for (v, c) in t.terms {
                        e.add_term(v, c.wrapping_mul(sign));
                    }
                    e.constant = e.constant.wrapping_add(t.constant.wrapping_mul(sign));
                }
            }
            if self.eat_punct(P::Plus) {
                sign = 1;
            } else if self.eat_punct(P::Minus) {
                sign = -1;
            } else {
                return Ok(e);
            }
            t = self.term()?;
        }
    }

    fn term(&mut self) -> PResult<Term> {
        if let Tok::Int(c) = self.peek() {
            self.bump();
            return self.int_term(c);
        }
        let a = self.atom()?;
        if self.eat_punct(P::Star) {
            let (c, _) = self.int("a constant coefficient")?;
            return Ok(a.scaled(c));
        }
        Ok(a)
    }

    /// A term that starts with the integer `c` (already read): `c` or `c * atom`.
    fn int_term(&mut self, c: i64) -> PResult<Term> {
        if self.eat_punct(P::Star) {
            let a = self.atom()?;
            return Ok(a.scaled(c));
        }
        Ok(Term::Const(c))
    }

    /// A `Term::Var` with coefficient 1 or a parenthesized `Term::Expr`.
    fn atom(&mut self) -> PResult<Term> {
        let loc = self.loc();
        match self.peek() {
            Tok::Word("tid") => {
                self.bump();
                Ok(Term::Var(Var::Tid, 1))
            }
            Tok::Value(n) => {
                self.bump();
                let v = self.integer_value(n, loc)?;
                Ok(Term::Var(Var::Value(v), 1))
            }
            Tok::Punct(P::LParen) => {
                self.bump();
                self.enter(loc)?;
                let e = self.expr()?;
                self.expect_punct(P::RParen)?;
                self.depth -= 1;
                Ok(Term::Expr(e))
            }
            _ => self.err("an integer, 'tid', '%name' or '('"),
        }
    }

    fn sync_op(&mut self) -> PResult<SyncOp> {
        let (w, wl) = self.word("a statement")?;
        let op = match w {
            "barrier" => {
                let fence = !self.eat_word("exec");
                let mut id = 0;
                let mut threads = None;
                if self.eat_word("id") {
                    id = self.small("a barrier id", 15)?.0 as u32;
                    if self.eat_word("threads") {
                        let (t, tl) = self.uint("a thread count")?;
                        if t == 0 || t > 4096 {
                            return Err(Diagnostic::error(Some(tl), "thread count must be between 1 and 4096"));
                        }
                        threads = Some(t as u32);
                    }
                }
                SyncOp::Barrier { id, fence, threads }
            }
            "barrier.signal" | "barrier.wait" => {
                let (id, il) = self.int("a barrier id (-1 for the workgroup barrier)")?;
                if !(-1..=16).contains(&id) || id == 0 {
                    return Err(Diagnostic::error(Some(il), format!("barrier id must be -1 or 1..16, got {id}")));
                }
                if w == "barrier.signal" {
                    SyncOp::Signal { id: id as i32 }
                } else {
                    SyncOp::Wait { id: id as i32 }
                }
            }
            "cond_barrier" => {
                let (g, gl) = self.word("'low' or 'high'")?;
                let group = Group::parse(g).ok_or_else(|| {
                    Diagnostic::error(Some(gl), format!("expected 'low' or 'high', found '{g}'"))
                })?;
                SyncOp::CondBarrier { group }
            }
            "wait" => {
                let (c, cl) = self.word("a counter")?;
                let counter = Counter::parse(c).ok_or_else(|| {
                    Diagnostic::error(Some(cl), format!("unknown counter '{c}'; expected one of {}", Counter::spellings()))
                })?;
                self.expect_punct(P::LParen)?;
                let n = self.small("a count", 1 << 16)?.0 as u32;
                self.expect_punct(P::RParen)?;
                SyncOp::CounterWait { counter, n }
            }
            "cp_async.commit" => SyncOp::CpAsyncCommit,
            "cp_async.wait" => SyncOp::CpAsyncWait { n: self.small("a group count", 1 << 16)?.0 as u32 },
            "set_flag" | "wait_flag" => {
                let src = self.pipe()?;
                self.expect_punct(P::Arrow)?;
                let dst = self.pipe()?;
                self.expect_punct(P::Comma)?;
                let id = self.flag_id()?;
                if w == "set_flag" {
                    SyncOp::SetFlag { src, dst, id }
                } else {
                    SyncOp::WaitFlag { src, dst, id }
                }
            }
            "pipe_barrier" => SyncOp::PipeBarrier { pipe: self.pipe()? },
            "sched_barrier" => SyncOp::SchedBarrier { mask: self.small("a mask", u32::MAX as u64)?.0 as u32 },
            "setprio" => SyncOp::SetPrio { prio: self.small("a priority (0..3)", 3)?.0 as u8 },
            _ => {
                return Err(Diagnostic::error(
                    Some(wl),
                    format!("unknown statement '{w}'; expected op, for, if, stage, a sync op (barrier, barrier.signal, barrier.wait, cond_barrier, wait, cp_async.commit, cp_async.wait, set_flag, wait_flag, pipe_barrier, sched_barrier, setprio) or '%name = ...'"),
                ))
            }
        };
        Ok(op)
    }

    /// `INT` or `INT + (expr) mod N`.
    fn flag_id(&mut self) -> PResult<FlagId> {
        let (base, _) = self.small("an event id", 255)?;
        if self.eat_punct(P::Plus) {
            self.expect_punct(P::LParen)?;
            let e = self.expr()?;
            self.expect_punct(P::RParen)?;
            self.expect_word("mod")?;
            let (n, nl) = self.uint("a modulus")?;
            if !(1..=16).contains(&n) {
                return Err(Diagnostic::error(
                    Some(nl),
                    "an alternating id's modulus must be between 1 and 16",
                ));
            }
            return Ok(FlagId {
                base: base as u32,
                alternate: Some((e, n as u32)),
            });
        }
        Ok(FlagId::fixed(base as u32))
    }
}

/// One term of an affine expression.
enum Term {
    Const(i64),
    /// `coef * var`; a zero coefficient adds nothing.
    Var(Var, i64),
    Expr(AffineExpr),
}

impl Term {
    fn scaled(self, c: i64) -> Term {
        match self {
            Term::Const(k) => Term::Const(k.wrapping_mul(c)),
            Term::Var(v, k) => Term::Var(v, k.wrapping_mul(c)),
            Term::Expr(e) => Term::Expr(scale(e, c)),
        }
    }
}

fn scale(mut e: AffineExpr, c: i64) -> AffineExpr {
    for t in &mut e.terms {
        t.1 = t.1.wrapping_mul(c);
    }
    e.terms.retain(|t| t.1 != 0);
    e.constant = e.constant.wrapping_mul(c);
    e
}

#[cfg(test)]
mod tests {
    //! The paths the fast parser added: an index that starts with an integer (told apart from
    //! a byte range without lookahead), the flat name table with its undo log, and the
    //! lexer's fast paths (indentation, integers, op names). Expected text and locations were
    //! checked against the parser before the rewrite.

    use crate::{parse, print_file};

    fn round(src: &str) -> String {
        match parse(src) {
            Ok(f) => print_file(&f),
            Err(d) => panic!("{}", d.render("t.sk", src)),
        }
    }

    fn err(src: &str) -> (String, String) {
        let d = parse(src).expect_err("should not parse");
        (d.loc.expect("located").to_string(), d.message)
    }

    fn k(body: &str) -> String {
        format!("kernel @k(%n) {{\n  %A = buffer workgroup 64\n{body}}}\n")
    }

    #[test]
    fn index_starting_with_an_integer() {
        let src = k("  op \"x\" read %A[4], write %A[4 * tid], read %A[4 + tid], read %A[4 * (tid + 1) - 2], read %A[0:8]\n");
        assert_eq!(
            round(&src),
            k("  op \"x\" read %A[4], write %A[tid * 4], read %A[tid + 4], read %A[tid * 4 + 2], read %A[0:8]\n")
        );
    }

    #[test]
    fn comment_inside_a_selector_goes_to_the_next_statement() {
        let src = k("  op \"x\" read %A[4 // c\n : 8]\n  op \"y\"\n");
        assert_eq!(
            round(&src),
            k("  op \"x\" read %A[4:8]\n  // c\n  op \"y\"\n")
        );
        let src = k("  op \"x\" read %A[4 // c\n * tid]\n");
        assert_eq!(round(&src), k("  op \"x\" read %A[tid * 4]\n  // c\n"));
    }

    #[test]
    fn selector_errors() {
        let e = |s: &str| err(&k(s));
        assert_eq!(
            e("  op \"x\" read %A[4 :]\n"),
            ("3:21".into(), "expected an end byte, found ']'".into())
        );
        assert_eq!(
            e("  op \"x\" read %A[4 *]\n"),
            (
                "3:21".into(),
                "expected an integer, 'tid', '%name' or '(', found ']'".into()
            )
        );
        assert_eq!(
            e("  op \"x\" read %A[8:4]\n"),
            (
                "3:20".into(),
                "empty byte range [8:4]: the end must be after the start".into()
            )
        );
    }

    #[test]
    fn shadowing_ends_with_the_block() {
        // The view shadows the buffer inside the loop only; the loop variable dies with it.
        let src = "kernel @k(%n) {\n  %A = buffer workgroup 64\n  for %i = 0 to 4 {\n    %A = view %A[0:32]\n    op \"x\" read %A\n  }\n  op \"y\" read %A\n}\n";
        let f = parse(src).expect("parses");
        let kern = &f.chunks[0].kernels[0];
        let mut reads = Vec::new();
        kern.walk(&mut |_, d| {
            if let crate::StmtKind::Op(op) = &d.kind {
                reads.push(kern.values[op.effects[0].mem.value].kind);
            }
        });
        assert!(matches!(reads[0], crate::ValueKind::View(_)), "{reads:?}");
        assert!(matches!(reads[1], crate::ValueKind::Buffer(_)), "{reads:?}");
        let after = src.replace(
            "  op \"y\" read %A\n",
            "  op \"y\" read %A\n  op \"z\" read %A[%i]\n",
        );
        assert_eq!(
            err(&after),
            ("8:18".into(), "use of undeclared name '%i'".into())
        );
    }

    #[test]
    fn redefinition_only_in_the_same_scope() {
        let (at, msg) =
            err("kernel @k(%n) {\n  %A = buffer workgroup 64\n  %A = buffer workgroup 32\n}\n");
        assert_eq!(
            (at.as_str(), msg.as_str()),
            ("3:3", "'%A' is already defined in this scope")
        );
        // A parameter lives in the scope around the body: the body may shadow it.
        let src = "kernel @k(%A) {\n  %A = buffer workgroup 64\n  op \"x\" read %A\n}\n";
        assert_eq!(round(src), src);
    }

    #[test]
    fn columns_after_odd_whitespace() {
        // Tab, CR and no-break space count one column each; non-ASCII in an op name counts
        // one column per character.
        let src =
            "kernel @k {\n\t%A = buffer workgroup 64\r\n \u{a0}op \"é\u{1F600}\" read %B\n}\n";
        assert_eq!(
            err(src),
            ("3:16".into(), "use of undeclared name '%B'".into())
        );
        // Indentation longer than eight bytes, then a tab.
        let src = "kernel @k {\n        \t  op \"x\" read %B\n}\n";
        assert_eq!(
            err(src),
            ("2:24".into(), "use of undeclared name '%B'".into())
        );
    }

    #[test]
    fn integers() {
        let src = "kernel @k {\n  %A = buffer workgroup 999999999999999999\n  %B = buffer workgroup 9223372036854775807\n  %C = buffer workgroup 0x1F\n  %D = buffer workgroup 007\n}\n";
        assert_eq!(
            round(src),
            "kernel @k {\n  %A = buffer workgroup 999999999999999999\n  %B = buffer workgroup 9223372036854775807\n  %C = buffer workgroup 31\n  %D = buffer workgroup 7\n}\n"
        );
        assert_eq!(
            err("kernel @k {\n  %A = buffer workgroup 9223372036854775808\n}\n"),
            (
                "2:25".into(),
                "invalid integer '9223372036854775808'".into()
            )
        );
    }

    #[test]
    fn op_name_errors() {
        let e = |s: &str| err(s).0;
        assert_eq!(e("kernel @k {\n  op \"x\\n\"\n}\n"), "2:8");
        assert_eq!(e("kernel @k {\n  op \"é\\n\"\n}\n"), "2:8");
        assert_eq!(e("kernel @k {\n  op \"x\n}\n"), "2:6");
        assert_eq!(e("kernel @k {\n  op \"x"), "2:6");
    }

    #[test]
    fn extreme_constants_print_back() {
        let src = "kernel @k(%n) {\n  %A = buffer workgroup 64\n  if uniform (%n * -9223372036854775807 - 1) mod 3 <= -5 {\n    op \"x\" read %A[-tid * 3 + 9223372036854775807]\n  }\n}\n";
        let want = "kernel @k(%n) {\n  %A = buffer workgroup 64\n  if uniform (-%n * 9223372036854775807 - 1) mod 3 <= -5 {\n    op \"x\" read %A[-tid * 3 + 9223372036854775807]\n  }\n}\n";
        assert_eq!(round(src), want);
        assert_eq!(round(want), want);
    }
}
