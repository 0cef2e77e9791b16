//! Empirical flow-size distributions: the built-in published CDFs and user CDF files.
//!
//! A CDF file has one point per line, `size_bytes cumulative_probability`, sizes
//! non-decreasing, probabilities non-decreasing and ending at 1; `#` starts a comment. A
//! first point with probability > 0 is a point mass. Sampling interpolates linearly
//! between points (as the HPCC simulator's `traffic_gen` does) unless the file says
//! `# interpolation: step` (each probability step sits at the upper size, as Homa samples);
//! `# interpolation: linear` says the default, and any other value is an error.

use rand::Rng;

use crate::engine::RngStream;
use crate::scenario::ScenarioError;

/// How probability mass between two points is spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
}

/// A flow-size distribution.
#[derive(Clone, Debug)]
pub struct EmpiricalCdf {
    pub name: String,
    sizes: Vec<f64>,
    probs: Vec<f64>,
    pub interpolation: Interpolation,
}

/// Built-in distributions: name, file text. Provenance is in each file's header and in
/// `docs/model.md`; the numbers are those of `../shared/workloads/`.
const BUILTIN: &[(&str, &str)] = &[
    ("websearch", include_str!("cdfs/websearch.cdf")),
    ("datamining", include_str!("cdfs/datamining.cdf")),
    ("webserver", include_str!("cdfs/webserver.cdf")),
    ("cachefollower", include_str!("cdfs/cachefollower.cdf")),
    ("hadoop", include_str!("cdfs/hadoop.cdf")),
    ("alibaba_storage", include_str!("cdfs/alibaba_storage.cdf")),
    ("memcached", include_str!("cdfs/memcached.cdf")),
    ("homa_w2", include_str!("cdfs/homa_w2.cdf")),
    ("homa_w3", include_str!("cdfs/homa_w3.cdf")),
    ("homa_w4", include_str!("cdfs/homa_w4.cdf")),
    ("homa_w5", include_str!("cdfs/homa_w5.cdf")),
    ("imc10", include_str!("cdfs/imc10.cdf")),
    ("alibaba_solar", include_str!("cdfs/alibaba_solar.cdf")),
    ("webserver_all", include_str!("cdfs/webserver_all.cdf")),
    ("webserver_intracluster", include_str!("cdfs/webserver_intracluster.cdf")),
];

impl EmpiricalCdf {
    /// Names of the built-in distributions.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }

    /// A built-in distribution by name; the error lists the known names.
    pub fn builtin(name: &str, field: &str) -> Result<EmpiricalCdf, ScenarioError> {
        match BUILTIN.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => Ok(EmpiricalCdf::parse(text, n).expect("built-in CDFs are valid")),
            None => Err(ScenarioError::field(
                field,
                format!("unknown workload \"{name}\"; expected one of {}", Self::builtin_names().join(", ")),
            )),
        }
    }

    /// Read a CDF file.
    pub fn from_file(path: &std::path::Path) -> Result<EmpiricalCdf, ScenarioError> {
        let text = crate::scenario::input::read_text(path, "CDF file")?;
        EmpiricalCdf::parse(&text, &path.display().to_string())
    }

    /// Parse CDF text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<EmpiricalCdf, ScenarioError> {
        let err = ScenarioError::in_file(file);
        let mut sizes = Vec::new();
        let mut probs = Vec::new();
        let mut interpolation = Interpolation::Linear;
        let mut last_line = 0;
        for (i, raw) in text.lines().enumerate() {
            let ln = i + 1;
            let line = raw.trim();
            if let Some(comment) = line.strip_prefix('#') {
                if let Some(value) = comment.trim().strip_prefix("interpolation:") {
                    interpolation = match value.trim() {
                        "step" => Interpolation::Step,
                        "linear" => Interpolation::Linear,
                        other => {
                            return Err(err(
                                ln,
                                format!("interpolation: expected \"linear\" or \"step\", got \"{other}\""),
                            ))
                        }
                    };
                }
                continue;
            }
            if line.is_empty() {
                continue;
            }
            last_line = ln;
            let t: Vec<&str> = line.split_whitespace().collect();
            let (Some(s), Some(p), 2) = (t.first(), t.get(1), t.len()) else {
                return Err(err(
                    ln,
                    format!("expected \"size_bytes cumulative_probability\", got \"{line}\""),
                ));
            };
            let s: f64 = s.parse().map_err(|_| err(ln, format!("size: expected a number, got \"{s}\"")))?;
            let p: f64 =
                p.parse().map_err(|_| err(ln, format!("probability: expected a number, got \"{p}\"")))?;
            if !(s.is_finite() && s >= 0.0) {
                return Err(err(ln, format!("size: expected a non-negative number, got {s}")));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(err(ln, format!("probability: expected a value in [0, 1], got {p}")));
            }
            if let (Some(ls), Some(lp)) = (sizes.last(), probs.last()) {
                if s < *ls || p < *lp {
                    return Err(err(ln, "sizes and probabilities must be non-decreasing".into()));
                }
            }
            sizes.push(s);
            probs.push(p);
        }
        if sizes.is_empty() {
            return Err(err(1, "no points; expected lines of \"size_bytes cumulative_probability\"".into()));
        }
        if (probs[probs.len() - 1] - 1.0).abs() > 1e-9 {
            return Err(err(
                last_line,
                format!("the last probability must be 1, got {}", probs[probs.len() - 1]),
            ));
        }
        if sizes[sizes.len() - 1] < 1.0 {
            return Err(err(last_line, "the largest size must be at least 1 byte".into()));
        }
        Ok(EmpiricalCdf { name: file.to_string(), sizes, probs, interpolation })
    }

    /// The largest size the distribution draws, in bytes.
    pub fn largest(&self) -> u64 {
        self.sizes[self.sizes.len() - 1].round() as u64
    }

    /// Mean flow size in bytes under this CDF's interpolation.
    pub fn mean(&self) -> f64 {
        let mut m = self.probs[0] * self.sizes[0];
        for i in 1..self.sizes.len() {
            let dp = self.probs[i] - self.probs[i - 1];
            m += dp
                * match self.interpolation {
                    Interpolation::Linear => (self.sizes[i] + self.sizes[i - 1]) / 2.0,
                    Interpolation::Step => self.sizes[i],
                };
        }
        m
    }

    /// Size at cumulative probability `u` (inverse CDF).
    pub fn quantile(&self, u: f64) -> f64 {
        if u <= self.probs[0] {
            return self.sizes[0];
        }
        let i = self.probs.partition_point(|p| *p < u).min(self.probs.len() - 1);
        let (p0, p1) = (self.probs[i - 1], self.probs[i]);
        let (s0, s1) = (self.sizes[i - 1], self.sizes[i]);
        match self.interpolation {
            Interpolation::Step => s1,
            Interpolation::Linear if p1 > p0 => s0 + (u - p0) / (p1 - p0) * (s1 - s0),
            Interpolation::Linear => s1,
        }
    }

    /// Draw one flow size (whole bytes, at least 1).
    pub fn sample(&self, rng: &mut RngStream) -> u64 {
        let u: f64 = rng.gen();
        (self.quantile(u).round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn websearch_mean_matches_the_published_table() {
        // ../shared/workloads/README.md: mean (linear) 1,711,250 B.
        let c = EmpiricalCdf::builtin("websearch", "w").unwrap();
        assert!((c.mean() - 1_711_250.0).abs() < 1.0, "{}", c.mean());
        let mut rng = RngStream::seed_from_u64(9);
        let n = 200_000;
        let m = (0..n).map(|_| c.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((m / c.mean() - 1.0).abs() < 0.02, "sample mean {m}");
    }

    #[test]
    fn bad_cdf_lines_are_named() {
        let e = EmpiricalCdf::parse("100 0.5\n50 0.7\n", "x.cdf").unwrap_err().to_string();
        assert!(e.starts_with("x.cdf:2:"), "{e}");
        let e = EmpiricalCdf::parse("100 0.5\n200 0.9\n", "x.cdf").unwrap_err().to_string();
        assert!(e.contains("last probability must be 1"), "{e}");
        let e = EmpiricalCdf::parse("# interpolation: cubic\n100 1\n", "x.cdf").unwrap_err().to_string();
        assert_eq!(e, "x.cdf:1: interpolation: expected \"linear\" or \"step\", got \"cubic\"");
        let c = EmpiricalCdf::parse("# interpolation:  linear\n100 0.5\n300 1\n", "x.cdf").unwrap();
        assert_eq!((c.interpolation, c.largest()), (Interpolation::Linear, 300));
        let e = EmpiricalCdf::builtin("websurch", "workload.size_dist").unwrap_err().to_string();
        assert!(e.starts_with("workload.size_dist: unknown workload \"websurch\""), "{e}");
    }
}
