// AFActivityIndicator: activity counting with activation and completion delays; a terminal indicator.
// NetworkActivityIndicatorManager holds AF's state machine, DelayScheduling is its clock, and
// TerminalActivityIndicator is the presentation command-line tools attach.
