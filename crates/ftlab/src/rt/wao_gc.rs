//! WAO-GC's analysis as the PaRT-FTL paper gives it (§IV, Eq. 12-16): the space bound of
//! partial GC with c copies per step, the worst write and read, and the bandwidths. Pure
//! arithmetic, in milliseconds. The scheme that acts on a device is `scheme::wao_gc`.

/// Table IV's WAO-GC column and the step size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// |F|: dies written in parallel; f_r: page reads in parallel.
    pub dies: u32,
    pub parallel_reads: u32,
    pub pages_per_block: u32,
    /// c: page copies per partial step.
    pub copies_per_step: u32,
    pub read_ms: f64,
    pub write_ms: f64,
    pub erase_ms: f64,
}

impl Config {
    /// Table IV: |F| = f_r = 16, t_r 1.23, t_w 1.87, t_e 3.84 ms; P = 256, c = 2 (§V-A).
    pub fn paper() -> Config {
        Config { dies: 16, parallel_reads: 16, pages_per_block: 256, copies_per_step: 2, read_ms: 1.23, write_ms: 1.87, erase_ms: 3.84 }
    }

    /// max(t_e, c(t_r + t_w)): one partial step.
    pub fn step_ms(&self) -> f64 {
        f64::max(self.erase_ms, self.copies_per_step as f64 * (self.read_ms + self.write_ms))
    }
}

/// Eq. 12's bound on λ, (P−1)c / ((c+1)P).
pub fn lambda_max(pages_per_block: u32, copies: u32) -> f64 {
    let (p, c) = (pages_per_block as f64, copies as f64);
    (p - 1.0) * c / ((c + 1.0) * p)
}

/// Eq. 13: the worst page write, t_w + max(t_e, c(t_r + t_w)).
pub fn worst_write_ms(c: &Config) -> f64 {
    c.write_ms + c.step_ms()
}

/// Eq. 14: the worst page read, t_r + t_w + max(t_e, c(t_r + t_w)).
pub fn worst_read_ms(c: &Config) -> f64 {
    c.read_ms + c.write_ms + c.step_ms()
}

/// Eq. 15: |F| / (t_w + max(...)) pages per second.
pub fn write_bandwidth(c: &Config) -> f64 {
    c.dies as f64 / (worst_write_ms(c) / 1000.0)
}

/// Eq. 16: f_r / (t_r + t_w + max(...)) pages per second.
pub fn read_bandwidth(c: &Config) -> f64 {
    c.parallel_reads as f64 / (worst_read_ms(c) / 1000.0)
}
