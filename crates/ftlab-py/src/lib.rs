//! PyO3 bindings for ftlab (the private `ftlab._core` module). Conversions and error mapping only.
