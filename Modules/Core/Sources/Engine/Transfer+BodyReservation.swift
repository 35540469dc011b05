/// A collected body's memory, reserved in steps toward the response's Content-Length as the bytes arrive
/// (``ResponseStateMachine/bodyReservation(toHold:reserved:announced:)``): a length that lies costs no
/// more than the bytes that came.
extension Transfer {
    /// Reserves the body's next step toward the announced length, if `needed` bytes do not fit.
    func reserveBody(toHold needed: Int) {
        guard let capacity = ResponseStateMachine.bodyReservation(
            toHold: needed, reserved: bodyReserved, announced: bodyReservationTarget) else { return }
        body.reserveCapacity(capacity)
        bodyReserved = capacity
    }
}
