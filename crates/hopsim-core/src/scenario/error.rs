//! Errors in a scenario, each naming the field (dotted path) or input-file line at fault,
//! and the checks every section's validation is written with.

/// An error in a scenario, naming the field (dotted path) or file line at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// A field has the wrong type or value.
    #[error("{path}: {message}")]
    Field { path: String, message: String },
    /// A line of an input file (topology, flow list, CDF) is malformed.
    #[error("{file}:{line}: {message}")]
    FileLine { file: String, line: usize, message: String },
    /// An input file cannot be read.
    #[error("{file}: {message}")]
    File { file: String, message: String },
    /// The scenario text is not valid TOML / JSON.
    #[error("{0}")]
    Syntax(String),
}

impl ScenarioError {
    pub fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError::Field { path: path.into(), message: message.into() }
    }

    /// A maker of `file:line` errors for the input file `file` (used by its parsers).
    pub fn in_file(file: &str) -> impl Fn(usize, String) -> ScenarioError + '_ {
        move |line, message| ScenarioError::FileLine { file: file.to_string(), line, message }
    }
}

/// `Ok` if `ok`, else an error naming `field`.
pub(crate) fn check(ok: bool, field: &str, message: impl Into<String>) -> Result<(), ScenarioError> {
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::field(field, message))
    }
}

/// A fraction: in `(0, 1]` (`open_zero`) or `[0, 1]`.
pub(crate) fn fraction(v: f64, field: &str, open_zero: bool) -> Result<(), ScenarioError> {
    let ok = v.is_finite() && v <= 1.0 && if open_zero { v > 0.0 } else { v >= 0.0 };
    let range = if open_zero { "(0, 1]" } else { "[0, 1]" };
    check(ok, field, format!("expected a number in {range}, got {v}"))
}
