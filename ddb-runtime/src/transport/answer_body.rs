//! The body of an answer that is a client error (HTTP 400), handed to the
//! SDK as it arrives: the SDK reads it, under its own protection against a
//! body that stalls, and the bytes it read are kept, so that ddb reads the
//! throttling reasons once the body has ended.

use std::pin::Pin;
use std::task::{Context, Poll};

use aws_smithy_types::body::{Error, SdkBody};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

use super::attempts::Attempts;

/// A client error's body, its bytes kept as the SDK reads them.
pub(crate) struct ClientErrorBody {
    inner: SdkBody,
    kept: Vec<u8>,
    /// The answer's `x-amzn-ErrorType` header, if it had one.
    error_type: Option<String>,
    /// Told once the body ends; `None` after.
    attempts: Option<Attempts>,
}

impl ClientErrorBody {
    /// `body`, of an answer with the `error_type` header, kept for
    /// `attempts` as the SDK reads it.
    pub(crate) fn wrap(body: SdkBody, error_type: Option<String>, attempts: Attempts) -> SdkBody {
        SdkBody::from_body_1_x(ClientErrorBody {
            inner: body,
            kept: Vec::new(),
            error_type,
            attempts: Some(attempts),
        })
    }
}

impl Body for ClientErrorBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.kept.extend_from_slice(data);
                }
            }
            Poll::Ready(None) => {
                if let Some(attempts) = this.attempts.take() {
                    attempts.answered(&this.kept, this.error_type.as_deref());
                }
            }
            _ => {}
        }
        polled
    }

    /// Not at its end until the end was read, so that its reader polls
    /// the end (which tells the attempts).
    fn is_end_stream(&self) -> bool {
        self.attempts.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        Body::size_hint(&self.inner)
    }
}
