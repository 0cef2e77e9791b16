//! Reading input files (scenario, topology, flow and CDF files) as text: regular files of
//! bounded size only (never a device or a directory), UTF-8 with an optional byte-order
//! mark, and every failure an error naming the file.

use std::io::Read;
use std::path::Path;

use super::limits::{count, MAX_INPUT_FILE_BYTES};
use super::ScenarioError;

/// Read `path` as UTF-8 text; `what` says which kind of file it is (`"flow file"`).
pub fn read_text(path: &Path, what: &str) -> Result<String, ScenarioError> {
    let file = path.display().to_string();
    let fail = |message: String| ScenarioError::File { file: file.clone(), message };
    let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read {what}: {e}")))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file" };
        return Err(fail(format!("cannot read {what}: {kind}")));
    }
    if meta.len() > MAX_INPUT_FILE_BYTES {
        return Err(fail(format!(
            "{what} of {} bytes is larger than the {} bytes hopsim reads",
            count(meta.len()),
            count(MAX_INPUT_FILE_BYTES)
        )));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_INPUT_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| fail(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > MAX_INPUT_FILE_BYTES {
        return Err(fail(format!(
            "{what} is larger than the {} bytes hopsim reads",
            count(MAX_INPUT_FILE_BYTES)
        )));
    }
    text_of(bytes).map_err(|m| fail(format!("{what}: {m}")))
}

/// Decode file bytes as UTF-8, dropping a leading byte-order mark.
pub fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    let mut text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "not a UTF-8 text file (invalid byte at offset {}; is it binary?)",
            e.utf8_error().valid_up_to()
        )
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    if text.contains('\0') {
        return Err("not a text file (it contains NUL bytes; is it binary?)".into());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bom_is_dropped_and_binary_or_special_files_are_refused() {
        assert_eq!(text_of(b"\xef\xbb\xbf1 2\n".to_vec()).unwrap(), "1 2\n");
        assert!(text_of(vec![0xff, 0xfe, 0x00]).unwrap_err().contains("UTF-8"));
        assert!(text_of(b"a\0b".to_vec()).unwrap_err().contains("NUL"));
        let e = read_text(Path::new("/dev/zero"), "flow file").unwrap_err().to_string();
        assert_eq!(e, "/dev/zero: cannot read flow file: not a regular file");
        let dir = std::env::temp_dir();
        let e = read_text(&dir, "CDF file").unwrap_err().to_string();
        assert!(e.ends_with("cannot read CDF file: a directory"), "{e}");
    }
}
