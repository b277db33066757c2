//! A line-structured reader for MLIR as `mlir-opt` prints it, in custom or generic form: one
//! op per line, regions opened by a `{` that ends a line and closed by a line that starts with
//! `}`. It keeps each op's line so that output can splice new lines in and leave every other
//! line byte-for-byte as it was.

use syncopt_ir::{Diagnostic, Loc};

#[derive(Clone, Debug)]
pub struct MOp {
    /// 0-based index of the op's first line.
    pub line: usize,
    /// Column (1-based) of the op's first character.
    pub col: usize,
    /// Op name without quotes: `memref.load`.
    pub name: String,
    pub generic: bool,
    /// Result names without `%`, expanded: `%r:2` gives `r#0`, `r#1`.
    pub results: Vec<String>,
    /// The text after the op name on its first line (operands, attributes, types).
    pub rest: String,
    pub regions: Vec<MRegion>,
    /// Text after the last region's closing `}` (generic form puts attributes there).
    pub tail: String,
}

#[derive(Clone, Debug, Default)]
pub struct MRegion {
    pub blocks: Vec<MBlock>,
}

#[derive(Clone, Debug, Default)]
pub struct MBlock {
    /// Block arguments `(name, type)` from a `^bb(...)` label.
    pub args: Vec<(String, String)>,
    pub ops: Vec<MOp>,
    /// Line of the `}` that closes the region this block ends.
    pub close_line: usize,
}

impl MOp {
    pub fn loc(&self) -> Loc {
        Loc {
            line: self.line as u32 + 1,
            col: self.col as u32,
        }
    }
}

fn strip_comment(line: &str) -> &str {
    // `//` inside a string attribute is rare in kernels; a quote before it keeps it.
    let mut in_str = false;
    let b = line.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'/' if !in_str && i + 1 < b.len() && b[i + 1] == b'/' => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Splits `%a, %b:2 = rest` into results and rest.
fn split_results(s: &str) -> (Vec<String>, &str) {
    if !s.starts_with('%') {
        return (Vec::new(), s);
    }
    // The `=` that ends the result list is the first one outside brackets, followed by a space.
    if let Some(eq) = s.find(" = ") {
        let lhs = &s[..eq];
        if lhs.split(',').all(|p| p.trim().starts_with('%')) {
            let mut res = Vec::new();
            for part in lhs.split(',') {
                let p = part.trim().trim_start_matches('%');
                match p.split_once(':') {
                    Some((n, k)) => {
                        let k: usize = k.trim().parse().unwrap_or(1);
                        for i in 0..k {
                            res.push(format!("{n}#{i}"));
                        }
                    }
                    None => res.push(p.to_string()),
                }
            }
            return (res, &s[eq + 3..]);
        }
    }
    (Vec::new(), s)
}

/// Parses the op tree of a whole file. The top level is one implicit block.
pub fn read(text: &str) -> Result<MBlock, Diagnostic> {
    let lines: Vec<&str> = text.lines().collect();
    // Stack of (op, region index) under construction: the op owns the regions.
    struct Frame {
        op: Option<MOp>,
        region: MRegion,
        block: MBlock,
    }
    let mut stack: Vec<Frame> = vec![Frame {
        op: None,
        region: MRegion::default(),
        block: MBlock::default(),
    }];
    for (ln, raw) in lines.iter().enumerate() {
        let code = strip_comment(raw);
        let trimmed = code.trim();
        if trimmed.is_empty() {
            continue;
        }
        let col = code.len() - code.trim_start().len() + 1;
        let loc = Loc {
            line: ln as u32 + 1,
            col: col as u32,
        };
        if let Some(after_brace) = trimmed.strip_prefix('}') {
            // Close the current region; what follows may open the next one.
            if stack.len() < 2 {
                return Err(Diagnostic::error(Some(loc), "'}' closes nothing"));
            }
            let mut fr = stack.pop().expect("frame");
            fr.block.close_line = ln;
            fr.region.blocks.push(fr.block);
            let mut op = fr.op.expect("region frame has an op");
            op.regions.push(fr.region);
            let after = after_brace.trim();
            let after = after.strip_prefix(')').map(str::trim).unwrap_or(after);
            let reopens = after.ends_with('{')
                && (after.starts_with("else")
                    || after.starts_with(", {")
                    || after.starts_with(",{")
                    || after == "{"
                    || after.starts_with("do"));
            if reopens {
                stack.push(Frame {
                    op: Some(op),
                    region: MRegion::default(),
                    block: MBlock::default(),
                });
            } else {
                op.tail = after.to_string();
                stack.last_mut().expect("parent").block.ops.push(op);
            }
            continue;
        }
        if trimmed.starts_with('^') {
            // A block label: ends the current block of this region, starts the next.
            let fr = stack.last_mut().expect("frame");
            let args = parse_block_args(trimmed);
            if !fr.block.ops.is_empty() || !fr.block.args.is_empty() {
                let done = std::mem::take(&mut fr.block);
                fr.region.blocks.push(done);
            }
            fr.block.args = args;
            continue;
        }
        let (results, body) = split_results(trimmed);
        let (name, generic, rest) = if let Some(b) = body.strip_prefix('"') {
            match b.find('"') {
                Some(e) => (b[..e].to_string(), true, b[e + 1..].to_string()),
                None => return Err(Diagnostic::error(Some(loc), "unterminated op name string")),
            }
        } else {
            let end = body
                .find(|c: char| c.is_whitespace() || c == '(' || c == '<')
                .unwrap_or(body.len());
            (body[..end].to_string(), false, body[end..].to_string())
        };
        if name.is_empty() {
            return Err(Diagnostic::error(
                Some(loc),
                format!("expected an op, found '{trimmed}'"),
            ));
        }
        let op = MOp {
            line: ln,
            col,
            name,
            generic,
            results,
            rest: rest.clone(),
            regions: Vec::new(),
            tail: String::new(),
        };
        let opens = rest.trim_end().ends_with('{') && !balanced_braces(rest.trim_end());
        if opens {
            stack.push(Frame {
                op: Some(op),
                region: MRegion::default(),
                block: MBlock::default(),
            });
        } else {
            stack.last_mut().expect("frame").block.ops.push(op);
        }
    }
    if stack.len() != 1 {
        let op = stack.last().and_then(|f| f.op.as_ref()).map(|o| o.loc());
        return Err(Diagnostic::error(op, "region opened here is never closed"));
    }
    let fr = stack.pop().expect("top");
    Ok(fr.block)
}

/// True when every `{` on the line is closed on it (an attribute dictionary, not a region).
fn balanced_braces(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
    }
    depth <= 0
}

fn parse_block_args(label: &str) -> Vec<(String, String)> {
    let Some(open) = label.find('(') else {
        return Vec::new();
    };
    let Some(close) = label.rfind(')') else {
        return Vec::new();
    };
    split_top(&label[open + 1..close])
        .into_iter()
        .filter_map(|a| {
            let (n, t) = a.split_once(':')?;
            Some((
                n.trim().trim_start_matches('%').to_string(),
                t.trim().to_string(),
            ))
        })
        .collect()
}

/// Splits on commas that are not inside `<>`, `()`, `[]` or `{}`.
pub fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

/// SSA names (`%x`, `%x#1`) in `s`, in order, without the `%`.
pub fn ssa_names(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let start = i + 1;
            let mut j = start;
            while j < b.len()
                && (b[j].is_ascii_alphanumeric()
                    || b[j] == b'_'
                    || b[j] == b'.'
                    || b[j] == b'$'
                    || b[j] == b'#'
                    || b[j] == b'-')
            {
                j += 1;
            }
            if j > start {
                out.push(s[start..j].to_string());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}
