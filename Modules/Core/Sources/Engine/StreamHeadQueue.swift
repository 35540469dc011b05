/// Streamed bodies whose final head arrived during this turn of the engine loop and whose caller waits
/// for it: the engine wakes those callers once the turn's transfers ran (``release()``), not from inside
/// libcurl's header callback. A caller woken then finds what the same turn brought after the head, the
/// body and often its end, and reads it without waiting again: for a small response one wake-up of the
/// caller's thread instead of up to three, and no race between that thread and the engine's callbacks.
/// The delay is the rest of the turn's libcurl calls.
///
/// Threading: confined to the engine thread, like the transfers that fill it.
final class StreamHeadQueue {
    private var streams: [LeanBodyStream] = []

    /// `stream`'s head arrived and its caller waits: wake it at the end of the turn.
    func append(_ stream: LeanBodyStream) {
        streams.append(stream)
    }

    /// Wakes every waiting caller of this turn (a stream that finished meanwhile woke its caller already).
    func release() {
        guard !streams.isEmpty else { return }
        for stream in streams { stream.releaseHead() }
        streams.removeAll(keepingCapacity: true)
    }
}
