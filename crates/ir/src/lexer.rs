//! Tokens of the text format. Hand-written: the format is small, and every error needs an
//! exact line and column.
//!
//! The lexer walks bytes, dispatching on a per-byte class table: the format is ASCII outside
//! comments and op names, and a million-statement kernel is eight million tokens, so the
//! per-token work is kept to a table lookup and a tight scan.

use crate::diag::Diagnostic;
use crate::kernel::Loc;

/// A punctuation token.
///
/// Eight bytes wide on purpose: every `Tok` payload then starts at offset 8, so a token is
/// copied as whole words. With a one-byte `Punct` at offset 1, tokens were copied piecewise
/// through their padding, and those loads missed store forwarding (a quarter of `fmt`'s
/// time at a million statements went to two such loads).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Punct {
    Arrow,
    Le,
    Ge,
    EqEq,
    Ne,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Eq,
    Colon,
    Plus,
    Minus,
    Star,
    Lt,
    Gt,
}

impl Punct {
    pub fn as_str(self) -> &'static str {
        match self {
            Punct::Arrow => "->",
            Punct::Le => "<=",
            Punct::Ge => ">=",
            Punct::EqEq => "==",
            Punct::Ne => "!=",
            Punct::LBrace => "{",
            Punct::RBrace => "}",
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::Comma => ",",
            Punct::Eq => "=",
            Punct::Colon => ":",
            Punct::Plus => "+",
            Punct::Minus => "-",
            Punct::Star => "*",
            Punct::Lt => "<",
            Punct::Gt => ">",
        }
    }
    /// Length in bytes (and characters) of its spelling.
    pub fn width(self) -> usize {
        self.as_str().len()
    }
}

impl std::fmt::Display for Punct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    /// A bare word: keyword, target name, memory space, pipe, counter.
    Word(&'a str),
    /// `%name`
    Value(&'a str),
    /// `@name`
    Symbol(&'a str),
    Int(i64),
    Str(&'a str),
    /// `// text` (the text after `//`, trimmed of one leading space).
    Comment(&'a str),
    /// The chunk separator line `// -----`.
    Split,
    Punct(Punct),
    Eof,
}

impl Tok<'_> {
    pub fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("'{w}'"),
            Tok::Value(v) => format!("'%{v}'"),
            Tok::Symbol(s) => format!("'@{s}'"),
            Tok::Int(i) => format!("integer {i}"),
            Tok::Str(_) => "a string".into(),
            Tok::Comment(_) => "a comment".into(),
            Tok::Split => "'// -----'".into(),
            Tok::Punct(p) => format!("'{p}'"),
            Tok::Eof => "end of input".into(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    pub loc: Loc,
}

// Byte classes of the first byte of a token.
const OTHER: u8 = 0;
const SPACE: u8 = 1;
const NEWLINE: u8 = 2;
/// ASCII whitespace other than space and newline (tab, CR, VT, FF): one column each.
const WHITE: u8 = 3;
const DIGIT: u8 = 4;
const ALPHA: u8 = 5;
const PERCENT: u8 = 6;
const AT: u8 = 7;
const QUOTE: u8 = 8;
const SLASH: u8 = 9;
const PUNCT: u8 = 10;

const fn classes() -> [u8; 256] {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = match c {
            b' ' => SPACE,
            b'\n' => NEWLINE,
            b'\t' | b'\r' | 0x0b | 0x0c => WHITE,
            b'0'..=b'9' => DIGIT,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => ALPHA,
            b'%' => PERCENT,
            b'@' => AT,
            b'"' => QUOTE,
            b'/' => SLASH,
            b'-' | b'<' | b'>' | b'=' | b'!' | b'{' | b'}' | b'(' | b')' | b'[' | b']' | b','
            | b':' | b'+' | b'*' => PUNCT,
            _ => OTHER,
        };
        b += 1;
    }
    t
}

static CLASS: [u8; 256] = classes();

const fn name_chars() -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$';
        b += 1;
    }
    t
}

static NAME_CHAR: [bool; 256] = name_chars();

/// The punctuation at byte `i`, longest match first.
fn punct(bytes: &[u8], i: usize) -> Option<Punct> {
    let next = bytes.get(i + 1).copied();
    Some(match bytes[i] {
        b'-' if next == Some(b'>') => Punct::Arrow,
        b'<' if next == Some(b'=') => Punct::Le,
        b'>' if next == Some(b'=') => Punct::Ge,
        b'=' if next == Some(b'=') => Punct::EqEq,
        b'!' if next == Some(b'=') => Punct::Ne,
        b'{' => Punct::LBrace,
        b'}' => Punct::RBrace,
        b'(' => Punct::LParen,
        b')' => Punct::RParen,
        b'[' => Punct::LBracket,
        b']' => Punct::RBracket,
        b',' => Punct::Comma,
        b'=' => Punct::Eq,
        b':' => Punct::Colon,
        b'+' => Punct::Plus,
        b'-' => Punct::Minus,
        b'*' => Punct::Star,
        b'<' => Punct::Lt,
        b'>' => Punct::Gt,
        _ => return None,
    })
}

/// End of the name starting at `start`.
#[inline]
fn name_end(bytes: &[u8], start: usize) -> usize {
    let mut e = start;
    while e < bytes.len() && NAME_CHAR[bytes[e] as usize] {
        e += 1;
    }
    e
}

/// Splits `src` into tokens; the first lexical error stops it.
pub fn lex(src: &str) -> Result<Vec<Token<'_>>, Diagnostic> {
    let mut lexer = Lexer::new(src);
    let mut out = Vec::new();
    loop {
        let t = lexer.next_token()?;
        let end = t.tok == Tok::Eof;
        out.push(t);
        if end {
            return Ok(out);
        }
    }
}

/// Tokens on demand: the parser keeps a few of lookahead instead of a vector of the whole
/// file, which on million-statement kernels is hundreds of megabytes.
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    src: &'a str,
    i: usize,
    /// Line (low half) and column (high half) of the next byte, packed as `Loc` lays them
    /// out: a token's location is then written as one 8-byte value, and copying it does not
    /// stall on store forwarding as two 4-byte halves did.
    pos: u64,
    /// The error that stopped the last `scan`.
    error: Option<Box<Diagnostic>>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            i: 0,
            pos: 1 | 1 << 32,
            error: None,
        }
    }

    #[inline(always)]
    fn loc(&self) -> Loc {
        Loc {
            line: self.pos as u32,
            col: (self.pos >> 32) as u32,
        }
    }

    #[inline(always)]
    fn add_cols(&mut self, n: u32) {
        self.pos += (n as u64) << 32;
    }

    #[inline(always)]
    fn new_line(&mut self) {
        self.pos = ((self.pos as u32) + 1) as u64 | 1 << 32;
    }

    /// Bytes not lexed yet.
    pub fn remaining(&self) -> usize {
        self.src.len() - self.i
    }

    /// The next token; `Eof` (repeated) at the end.
    #[inline]
    pub fn next_token(&mut self) -> Result<Token<'a>, Diagnostic> {
        let t = self.scan();
        match self.error.take() {
            Some(d) => Err(*d),
            None => Ok(t),
        }
    }

    /// The next token, without a `Result` to move around on the hot path: a lexical error
    /// gives `Eof` and leaves the diagnostic in [`Lexer::take_error`].
    #[inline(always)]
    pub fn scan(&mut self) -> Token<'a> {
        let src = self.src;
        let bytes = src.as_bytes();
        let mut i = self.i;
        // Whitespace: stays in registers, written back once.
        loop {
            let Some(&b) = bytes.get(i) else {
                self.i = i;
                return Token {
                    tok: Tok::Eof,
                    loc: self.loc(),
                };
            };
            match CLASS[b as usize] {
                SPACE | WHITE => {
                    i += 1;
                    self.add_cols(1);
                }
                NEWLINE => {
                    i += 1;
                    self.new_line();
                    // Indentation: eight spaces at a time.
                    while let Some(w) = bytes.get(i..i + 8) {
                        let x = u64::from_le_bytes(w.try_into().expect("8 bytes"))
                            ^ 0x2020_2020_2020_2020;
                        let n = if x == 0 { 8 } else { x.trailing_zeros() / 8 };
                        i += n as usize;
                        self.add_cols(n);
                        if n < 8 {
                            break;
                        }
                    }
                }
                _ if b >= 0x80 => {
                    // Non-ASCII whitespace counts one column, like a space.
                    let c = src[i..].chars().next().expect("in bounds");
                    if !c.is_whitespace() {
                        break;
                    }
                    i += c.len_utf8();
                    self.add_cols(1);
                }
                _ => break,
            }
        }
        let b = bytes[i];
        let loc = self.loc();
        let (tok, end) = match CLASS[b as usize] {
            ALPHA => {
                let end = name_end(bytes, i + 1);
                (Tok::Word(&src[i..end]), end)
            }
            PERCENT | AT => {
                let end = name_end(bytes, i + 1);
                if end == i + 1 {
                    return self.fail(
                        i,
                        Diagnostic::error(
                            Some(loc),
                            format!("expected a name after '{}'", b as char),
                        ),
                    );
                }
                let name = &src[i + 1..end];
                let tok = if b == b'%' {
                    Tok::Value(name)
                } else {
                    Tok::Symbol(name)
                };
                (tok, end)
            }
            PUNCT => match punct(bytes, i) {
                Some(p) => (Tok::Punct(p), i + p.width()),
                None => return self.unexpected(i, loc),
            },
            DIGIT => {
                let mut end = i;
                let mut v: u64 = 0;
                let mut digits_only = true;
                while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
                    let d = bytes[end].wrapping_sub(b'0');
                    if d < 10 {
                        v = v.wrapping_mul(10).wrapping_add(d as u64);
                    } else {
                        digits_only = false;
                    }
                    end += 1;
                }
                // Up to 18 decimal digits cannot overflow an i64; anything else takes the
                // general (and error-reporting) path.
                let v = if digits_only && end - i <= 18 {
                    v as i64
                } else {
                    let text = &src[i..end];
                    let value = if let Some(hex) = text.strip_prefix("0x") {
                        i64::from_str_radix(hex, 16)
                    } else {
                        text.parse::<i64>()
                    };
                    match value {
                        Ok(v) => v,
                        Err(_) => {
                            return self.fail(
                                i,
                                Diagnostic::error(Some(loc), format!("invalid integer '{text}'")),
                            );
                        }
                    }
                };
                (Tok::Int(v), end)
            }
            QUOTE => {
                // The name up to its closing quote, or to whatever stops it.
                let j = i
                    + 1
                    + bytes[i + 1..]
                        .iter()
                        .position(|&c| matches!(c, b'"' | b'\n' | b'\\'))
                        .unwrap_or(bytes.len() - i - 1);
                let ascii = bytes[i + 1..j].is_ascii();
                match bytes.get(j) {
                    Some(b'"') => {}
                    Some(b'\\') => {
                        return self.fail(
                            i,
                            Diagnostic::error(
                                Some(Loc {
                                    line: loc.line,
                                    // Columns count characters, and the string may hold non-ASCII.
                                    col: loc.col + src[i..j].chars().count() as u32,
                                }),
                                "escapes are not allowed in op names",
                            ),
                        );
                    }
                    _ => {
                        return self.fail(i, Diagnostic::error(Some(loc), "unterminated string"));
                    }
                }
                let width = if ascii {
                    (j + 1 - i) as u32
                } else {
                    src[i..=j].chars().count() as u32
                };
                self.i = j + 1;
                self.add_cols(width);
                return Token {
                    tok: Tok::Str(&src[i + 1..j]),
                    loc,
                };
            }
            SLASH if bytes.get(i + 1) == Some(&b'/') => {
                let end = src[i..].find('\n').map_or(src.len(), |e| i + e);
                let text = &src[i + 2..end];
                let trimmed = text.trim();
                let tok = if trimmed.len() >= 5 && trimmed.chars().all(|c| c == '-') {
                    Tok::Split
                } else {
                    Tok::Comment(text.strip_prefix(' ').unwrap_or(text).trim_end())
                };
                self.i = end;
                self.add_cols(src[i..end].chars().count() as u32);
                return Token { tok, loc };
            }
            _ => return self.unexpected(i, loc),
        };
        self.i = end;
        // Every token but comments and strings is ASCII: one column per byte.
        self.add_cols((end - i) as u32);
        Token { tok, loc }
    }

    /// The diagnostic of the lexical error that ended the last `scan`, if any.
    pub fn take_error(&mut self) -> Option<Diagnostic> {
        self.error.take().map(|d| *d)
    }

    #[cold]
    fn fail(&mut self, i: usize, d: Diagnostic) -> Token<'a> {
        self.i = i;
        let loc = d.loc.unwrap_or_default();
        self.error = Some(Box::new(d));
        Token { tok: Tok::Eof, loc }
    }

    #[cold]
    fn unexpected(&mut self, i: usize, loc: Loc) -> Token<'a> {
        let c = self.src[i..].chars().next().expect("in bounds");
        self.fail(
            i,
            Diagnostic::error(
                Some(loc),
                format!("unexpected character '{}'", c.escape_debug()),
            ),
        )
    }
}
