//! The keys a [`Db`](crate::Db) signs and encrypts its cursors with.

/// The keys cursors are signed with (HMAC-SHA256): the current key signs,
/// and the current and previous keys verify, so a key can be rotated without
/// breaking the cursors clients hold. Give them to a [`Db`](crate::Db) with
/// [`with_cursor_key`](crate::Db::with_cursor_key); use at least 32 random
/// bytes. Its `Debug` never shows the keys.
#[derive(Clone)]
pub struct CursorKeys {
    current: Vec<u8>,
    previous: Vec<Vec<u8>>,
    /// Encrypt the cursors (AES-256-GCM-SIV) rather than only sign them.
    pub(crate) encrypt: bool,
}

impl std::fmt::Debug for CursorKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CursorKeys({} previous)", self.previous.len())
    }
}

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// AES-GCM-SIV's nonce length.
const NONCE: usize = 12;

/// What an encrypted cursor starts with.
pub(crate) const SEALED: &str = "e.";

impl CursorKeys {
    pub(crate) fn new(current: Vec<u8>) -> Self {
        Self {
            current,
            previous: Vec::new(),
            encrypt: false,
        }
    }

    /// The same keys, encrypting the cursors they make.
    pub(crate) fn encrypting(&self) -> Self {
        Self {
            encrypt: true,
            ..self.clone()
        }
    }

    /// The same keys with `current` signing, and the key it replaces still
    /// verifying (one generation: the key before that is retired).
    pub(crate) fn rotated(&self, current: Vec<u8>) -> Self {
        Self {
            current,
            previous: vec![self.current.clone()],
            encrypt: self.encrypt,
        }
    }

    /// The same keys, also verifying with `previous`.
    pub(crate) fn with_previous(&self, previous: Vec<u8>) -> Self {
        let mut keys = self.clone();
        keys.previous.push(previous);
        keys
    }

    /// The MAC of `document` under `key` (HMAC takes keys of any length, so
    /// `None` never happens in practice).
    fn mac(key: &[u8], document: &[u8]) -> Option<HmacSha256> {
        use hmac::{KeyInit, Mac};
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(key).ok()?;
        mac.update(document);
        Some(mac)
    }

    pub(crate) fn sign(&self, document: &[u8]) -> Vec<u8> {
        use hmac::Mac;
        Self::mac(&self.current, document)
            .map(|mac| mac.finalize().into_bytes().to_vec())
            .unwrap_or_default()
    }

    /// `document` encrypted under the current key: a synthetic nonce (the
    /// MAC of the document, so no random source is needed and AES-GCM-SIV
    /// stays safe if it repeats), then the ciphertext and its tag.
    pub(crate) fn seal(&self, document: &[u8]) -> Vec<u8> {
        use aes_gcm_siv::aead::Aead;
        let nonce = self.sign(document);
        let Some((cipher, nonce)) = Self::cipher(&self.current).zip(nonce.get(..NONCE)) else {
            return Vec::new();
        };
        let Ok(nonce) = aes_gcm_siv::Nonce::try_from(nonce) else {
            return Vec::new();
        };
        match cipher.encrypt(&nonce, document) {
            Ok(sealed) => [nonce.as_slice(), &sealed].concat(),
            Err(_) => Vec::new(),
        }
    }

    /// The document of a sealed cursor, under the current or a previous key.
    pub(crate) fn open(&self, sealed: &[u8]) -> Option<Vec<u8>> {
        use aes_gcm_siv::aead::Aead;
        let (nonce, ciphertext) = (sealed.get(..NONCE)?, sealed.get(NONCE..)?);
        let nonce = aes_gcm_siv::Nonce::try_from(nonce).ok()?;
        std::iter::once(&self.current)
            .chain(&self.previous)
            .filter(|key| !key.is_empty())
            .filter_map(|key| Self::cipher(key))
            .find_map(|cipher| cipher.decrypt(&nonce, ciphertext).ok())
    }

    /// The AES-256-GCM-SIV cipher of a cursor key: its own key derived from
    /// it (HMAC-SHA256 under a fixed label), never the signing key itself.
    fn cipher(key: &[u8]) -> Option<aes_gcm_siv::Aes256GcmSiv> {
        use aes_gcm_siv::aead::KeyInit as _;
        use hmac::Mac;
        if key.is_empty() {
            return None;
        }
        let derived = Self::mac(key, b"ddb cursor encryption key")?
            .finalize()
            .into_bytes();
        aes_gcm_siv::Aes256GcmSiv::new_from_slice(&derived).ok()
    }

    /// Whether `tag` signs `document` under the current or a previous key
    /// (compared in constant time). An empty key verifies nothing: a key
    /// missing from the configuration fails closed.
    pub(crate) fn verify(&self, document: &[u8], tag: &[u8]) -> bool {
        use hmac::Mac;
        std::iter::once(&self.current)
            .chain(&self.previous)
            .filter(|key| !key.is_empty())
            .filter_map(|key| Self::mac(key, document))
            .any(|mac| mac.verify_slice(tag).is_ok())
    }
}
