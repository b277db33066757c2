//! Tokens of the text format. Hand-written: the format is small, and every error needs an
//! exact line and column.

use crate::diag::Diagnostic;
use crate::kernel::Loc;

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
    Punct(&'static str),
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

/// The punctuation at byte `i`, longest match first.
fn punct(bytes: &[u8], i: usize) -> Option<&'static str> {
    let next = bytes.get(i + 1).copied();
    Some(match bytes[i] {
        b'-' if next == Some(b'>') => "->",
        b'<' if next == Some(b'=') => "<=",
        b'>' if next == Some(b'=') => ">=",
        b'=' if next == Some(b'=') => "==",
        b'!' if next == Some(b'=') => "!=",
        b'{' => "{",
        b'}' => "}",
        b'(' => "(",
        b')' => ")",
        b'[' => "[",
        b']' => "]",
        b',' => ",",
        b'=' => "=",
        b':' => ":",
        b'+' => "+",
        b'-' => "-",
        b'*' => "*",
        b'<' => "<",
        b'>' => ">",
        _ => return None,
    })
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
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
    line: u32,
    col: u32,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            i: 0,
            line: 1,
            col: 1,
        }
    }

    /// Bytes not lexed yet.
    pub fn remaining(&self) -> usize {
        self.src.len() - self.i
    }

    /// The next token; `Eof` (repeated) at the end.
    pub fn next_token(&mut self) -> Result<Token<'a>, Diagnostic> {
        let src = self.src;
        let bytes = src.as_bytes();
        let (mut i, mut line, mut col) = (self.i, self.line, self.col);
        let r = loop {
            if i >= bytes.len() {
                break Ok(Token {
                    tok: Tok::Eof,
                    loc: Loc { line, col },
                });
            }
            // ASCII fast path: the format is ASCII outside comments and op names.
            let b = bytes[i];
            let c = if b < 0x80 {
                b as char
            } else {
                src[i..].chars().next().expect("in bounds")
            };
            let loc = Loc { line, col };
            if c == ' ' {
                i += 1;
                col += 1;
                continue;
            }
            if c == '\n' {
                i += 1;
                line += 1;
                col = 1;
                continue;
            }
            if c.is_whitespace() {
                i += c.len_utf8();
                col += 1;
                continue;
            }
            if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
                let end = src[i..].find('\n').map_or(src.len(), |e| i + e);
                let text = &src[i + 2..end];
                let trimmed = text.trim();
                let tok = if trimmed.len() >= 5 && trimmed.chars().all(|c| c == '-') {
                    Tok::Split
                } else {
                    Tok::Comment(text.strip_prefix(' ').unwrap_or(text).trim_end())
                };
                let token = Token { tok, loc };
                col += src[i..end].chars().count() as u32;
                i = end;
                break Ok(token);
            }
            let take_name = |start: usize| -> usize {
                let mut e = start;
                while e < bytes.len() && is_name_char(bytes[e] as char) {
                    e += 1;
                }
                e
            };
            if c == '%' || c == '@' {
                let end = take_name(i + 1);
                if end == i + 1 {
                    return Err(Diagnostic::error(
                        Some(loc),
                        format!("expected a name after '{c}'"),
                    ));
                }
                let name = &src[i + 1..end];
                let token = Token {
                    tok: if c == '%' {
                        Tok::Value(name)
                    } else {
                        Tok::Symbol(name)
                    },
                    loc,
                };
                col += (end - i) as u32;
                i = end;
                break Ok(token);
            }
            if c.is_ascii_digit() {
                let mut end = i;
                while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
                    end += 1;
                }
                let text = &src[i..end];
                let value = if let Some(hex) = text.strip_prefix("0x") {
                    i64::from_str_radix(hex, 16)
                } else {
                    text.parse::<i64>()
                };
                let v = value.map_err(|_| {
                    Diagnostic::error(Some(loc), format!("invalid integer '{text}'"))
                })?;
                let token = Token {
                    tok: Tok::Int(v),
                    loc,
                };
                col += (end - i) as u32;
                i = end;
                break Ok(token);
            }
            if c.is_ascii_alphabetic() || c == '_' {
                let end = take_name(i);
                let token = Token {
                    tok: Tok::Word(&src[i..end]),
                    loc,
                };
                col += (end - i) as u32;
                i = end;
                break Ok(token);
            }
            if c == '"' {
                let mut j = i + 1;
                loop {
                    match src[j..].chars().next() {
                        None | Some('\n') => {
                            return Err(Diagnostic::error(Some(loc), "unterminated string"));
                        }
                        Some('"') => break,
                        Some('\\') => {
                            return Err(Diagnostic::error(
                                Some(Loc {
                                    line,
                                    // Columns count characters, and the string may hold non-ASCII.
                                    col: col + src[i..j].chars().count() as u32,
                                }),
                                "escapes are not allowed in op names",
                            ));
                        }
                        Some(ch) => j += ch.len_utf8(),
                    }
                }
                let token = Token {
                    tok: Tok::Str(&src[i + 1..j]),
                    loc,
                };
                col += src[i..=j].chars().count() as u32;
                i = j + 1;
                break Ok(token);
            }
            if let Some(p) = punct(bytes, i) {
                let token = Token {
                    tok: Tok::Punct(p),
                    loc,
                };
                i += p.len();
                col += p.len() as u32;
                break Ok(token);
            }
            return Err(Diagnostic::error(
                Some(loc),
                format!("unexpected character '{}'", c.escape_debug()),
            ));
        };
        self.i = i;
        self.line = line;
        self.col = col;
        r
    }
}
