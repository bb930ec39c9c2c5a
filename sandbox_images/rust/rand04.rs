//! `rand` with rand 0.4's calling convention, on Debian's rand 0.8: HumanEval-X's Rust tests
//! were written for rand 0.4 (`rng.gen_range(low, high)`), which rand 0.8 spells
//! `gen_range(low..high)`. The rust_test language links this as `rand`; rust links rand 0.8.

pub use rand08::distributions;
pub use rand08::rngs::{self, StdRng, ThreadRng};
pub use rand08::{random, thread_rng, CryptoRng, Error, RngCore, SeedableRng};

use rand08::distributions::uniform::SampleUniform;
use rand08::distributions::{Distribution, Standard};
use rand08::seq::SliceRandom;

/// rand 0.4's `Rng`: every generator has it.
pub trait Rng: RngCore {
    fn gen<T>(&mut self) -> T
    where
        Standard: Distribution<T>,
    {
        rand08::Rng::gen(self)
    }

    /// A value in `[low, high)`, as rand 0.4's `gen_range(low, high)`.
    fn gen_range<T: SampleUniform + PartialOrd>(&mut self, low: T, high: T) -> T {
        rand08::Rng::gen_range(self, low..high)
    }

    fn gen_bool(&mut self, p: f64) -> bool {
        rand08::Rng::gen_bool(self, p)
    }

    fn gen_weighted_bool(&mut self, n: u32) -> bool {
        n <= 1 || rand08::Rng::gen_range(self, 0..n) == 0
    }

    fn shuffle<T>(&mut self, values: &mut [T]) {
        values.shuffle(self)
    }

    fn choose<'a, T>(&mut self, values: &'a [T]) -> Option<&'a T> {
        values.choose(self)
    }
}

impl<R: RngCore + ?Sized> Rng for R {}
