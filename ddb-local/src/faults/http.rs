//! Just enough HTTP/1.1 for the proxy: reading a request or a response off
//! a connection (with a length or chunked), writing one, and forwarding a
//! request upstream for its answer.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub(super) struct Request {
    pub(super) head: String,
    pub(super) body: Vec<u8>,
}

impl Request {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

pub(super) async fn read_message(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Request> {
    loop {
        if let Some(end) = find(buffer, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_string();
            let length = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.trim()
                        .eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            let chunked = head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked");
            let mut rest = buffer[end + 4..].to_vec();
            if chunked {
                loop {
                    if let Some(body) = dechunk(&rest) {
                        buffer.clear();
                        return Some(Request { head, body });
                    }
                    let mut chunk = [0u8; 8192];
                    let n = stream.read(&mut chunk).await.ok()?;
                    if n == 0 {
                        return None;
                    }
                    rest.extend_from_slice(&chunk[..n]);
                }
            }
            while rest.len() < length {
                let mut chunk = [0u8; 8192];
                let n = stream.read(&mut chunk).await.ok()?;
                if n == 0 {
                    return None;
                }
                rest.extend_from_slice(&chunk[..n]);
            }
            let body = rest[..length].to_vec();
            *buffer = rest[length..].to_vec();
            return Some(Request { head, body });
        }
        let mut chunk = [0u8; 8192];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The body of a complete chunked message, `None` while incomplete.
fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = find(data, b"\r\n")?;
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..line_end]).trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        if data.len() < size.checked_add(2)? {
            return None;
        }
        body.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

pub(super) fn response(status: u16, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: {}\r\nx-amzn-requestid: proxy\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

pub(super) fn with_body(request: &Request, body: &[u8]) -> Vec<u8> {
    let mut head: Vec<String> = request
        .head
        .lines()
        .filter(|l| {
            let lower = l.to_ascii_lowercase();
            !lower.starts_with("content-length:") && !lower.starts_with("transfer-encoding:")
        })
        .map(str::to_owned)
        .collect();
    head.push(format!("content-length: {}", body.len()));
    let mut out = head.join("\r\n").into_bytes();
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(body);
    out
}

pub(super) async fn forward(upstream: &str, bytes: &[u8]) -> Option<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(upstream).await.ok()?;
    stream.write_all(bytes).await.ok()?;
    let mut buffer = Vec::new();
    let reply = read_message(&mut stream, &mut buffer).await?;
    let status = reply.head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, reply.body))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk size at the top of the integer range is a malformed message,
    /// not an overflow.
    #[test]
    fn a_huge_chunk_size_is_malformed() {
        assert_eq!(dechunk(b"ffffffffffffffff\r\nabc\r\n0\r\n\r\n"), None);
        assert_eq!(dechunk(b"3\r\nabc\r\n0\r\n\r\n"), Some(b"abc".to_vec()));
    }
}
