// AFActivityIndicator: activity counting with activation and completion delays; a terminal indicator.
// (The module's types land here; this file only names the module's purpose.)
