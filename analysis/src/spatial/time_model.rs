//! From energy and depth to cycles: the wafer-scale model of Luczynski et al. ("Near-Optimal
//! Wafer-Scale Reduce", HPDC 2024; docs/design.md §12.10), which they report within 4 % of
//! measured cycles for reduce and all-reduce on the Cerebras WSE:
//!
//! T = max(C, E/N + L) + (2·T_R + 1)·D
//!
//! with C the contention (the most 32-bit words one processor must send or receive: it
//! handles one per cycle), E the energy (words × hops), N the links active at once, L the
//! distance (the most hops one message travels), D the depth (dependent steps, each paying the
//! ramp from processor to router and back, T_R cycles each way, and one cycle more).
//!
//! Per step of a pattern ([`Step`]: batched LCA's steps run one after another) the estimate is
//! taken on that step's counts, and the steps' estimates add. C, E, L and D are counted
//! ([`super::messages`]); N and T_R are the model's parameters ([`TimeModel`]).

use super::messages::{Cost, Step};

/// The named parameters of the estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeModel {
    /// T_R: cycles from a processor onto its router (and as many back off it).
    pub ramp_latency: f64,
    /// The share of the grid's links that carry words at once: N = share × the directed links
    /// between the processors that hold a vertex ([`super::Placement::links`]).
    pub active_links: f64,
}

impl Default for TimeModel {
    /// T_R = 2 cycles: the seed's figure for the WSE-2, "an initial latency of 2 cycles", taken
    /// as the ramp's; every link active (N the grid's links: E/N is then the fewest cycles the
    /// energy can take). Both are assumptions to set for a given machine.
    fn default() -> TimeModel {
        TimeModel {
            ramp_latency: 2.0,
            active_links: 1.0,
        }
    }
}

impl TimeModel {
    /// The estimate in cycles of one step on placement `i` of `links` directed links.
    pub fn step_cycles(&self, s: &Step, i: usize, links: u64) -> f64 {
        let n = (self.active_links * links as f64).max(1.0);
        let spread = s.energy[i] as f64 / n + s.longest[i] as f64;
        (s.contention as f64).max(spread) + (2.0 * self.ramp_latency + 1.0) * s.depth as f64
    }

    /// The estimate in cycles of a pattern, per placement (`links[i]`: placement i's directed
    /// links): its steps' estimates added.
    pub fn cycles(&self, c: &Cost, links: &[u64]) -> Vec<f64> {
        links
            .iter()
            .enumerate()
            .map(|(i, &l)| c.steps.iter().map(|s| self.step_cycles(s, i, l)).sum())
            .collect()
    }

    /// Refuses parameters that give no estimate (negative, not finite, no link at all).
    pub fn check(&self) -> Result<(), String> {
        if !(self.ramp_latency.is_finite() && self.ramp_latency >= 0.0) {
            return Err(format!(
                "ramp latency {}: expected cycles ≥ 0",
                self.ramp_latency
            ));
        }
        if !(self.active_links.is_finite() && self.active_links > 0.0 && self.active_links <= 1.0) {
            return Err(format!(
                "active links {}: expected a share of the links in (0, 1]",
                self.active_links
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A star reduce of P = 5 processors in a row, 1 word each, as the paper's example: the
    /// root takes 4 words (C = 4), E = 1 + 2 + 3 + 4 = 10 on N = 8 directed links, L = 4, one
    /// step of depth 4 (the root's four receives under the limit): max(4, 10/8 + 4) + 5·4.
    #[test]
    fn a_star_reduce_by_hand() {
        let s = Step {
            energy: vec![10],
            depth: 4,
            contention: 4,
            longest: vec![4],
        };
        let c = Cost {
            energy: vec![10],
            depth: 4,
            chain_depth: 1,
            messages: 4,
            congestion: 4,
            steps: vec![s.clone(), s],
        };
        let t = TimeModel::default();
        assert_eq!(t.cycles(&c, &[8]), vec![2.0 * (5.25 + 20.0)]);
        let t = TimeModel {
            ramp_latency: 0.0,
            active_links: 0.5,
        };
        // N = 4: max(4, 10/4 + 4) + 1·4 per step.
        assert_eq!(t.cycles(&c, &[8]), vec![2.0 * (6.5 + 4.0)]);
        assert!(
            TimeModel {
                ramp_latency: -1.0,
                active_links: 1.0
            }
            .check()
            .is_err()
        );
        assert!(
            TimeModel {
                ramp_latency: 1.0,
                active_links: 0.0
            }
            .check()
            .is_err()
        );
        assert!(TimeModel::default().check().is_ok());
    }
}
