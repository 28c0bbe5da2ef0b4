//! Delayed-parity windows (START_DELAYED / END_DELAYED).

use super::*;

impl Store {
    // ---------------------------------------------------------------- delayed windows

    /// START_DELAYED on file `name` (created if missing): writes to it go to the cache zone
    /// without parity until [`Store::delayed_end`]. Returns the window's token.
    pub fn delayed_start(&self, name: &str) -> Result<String, StoreError> {
        self.check_usable()?;
        if self.kind != StrategyKind::Delayed {
            return Err(StoreError::BadInput(format!(
                "this store's write path is {}: delayed windows need a store created with --write-path delayed",
                self.sb.write_path.name()
            )));
        }
        let file = self.file_or_create(name)?;
        let _shared = self.gate.read();
        let (token, plans) = {
            let mut core = self.core.lock();
            if let Some((t, _)) = core.state.windows.iter().find(|(_, w)| w.file == file) {
                return Err(StoreError::BadInput(format!(
                    "file '{name}' already has an open delayed window (token {t}); end it with `exaraid store delayed end` first"
                )));
            }
            let now_ns = Self::now_ns(&core);
            let window = core.state.next_window;
            let plans = core
                .strategy
                .on_hint(&Hint::StartDelayed { window, file }, now_ns)
                .map_err(plan_err)?;
            let token = format!("{}-{window}", &self.sb.store_id[..8]);
            let w = Window {
                window,
                file,
                name: name.to_string(),
                started_unix_ns: unix_now_ns(),
            };
            self.journal(
                &mut core,
                Rec::Input(Input::StartDelayed {
                    window,
                    file,
                    now_ns,
                }),
                false,
            )?;
            self.journal(
                &mut core,
                Rec::WindowStart {
                    token: token.clone(),
                    window: w,
                },
                true,
            )?;
            (token, self.admit(plans))
        };
        self.run_plans(plans, None)?;
        Ok(token)
    }

    /// The byte ranges of a window whose only copy sat on a failed OSS.
    pub(super) fn lost_ranges(&self, core: &Core, window: u64) -> Vec<(String, u64, u64, usize)> {
        core.strategy
            .unprotected()
            .into_iter()
            .filter(|u| {
                u.window == window
                    && (!self.backends[u.oss].healthy() || core.state.failed_oss.contains(&u.oss))
            })
            .map(|u| {
                let name = core
                    .state
                    .file_by_id(u.file)
                    .map(|(n, _)| n.clone())
                    .unwrap_or_default();
                (
                    name,
                    u.file_offset_bytes,
                    u.file_offset_bytes + u.len_bytes,
                    u.oss,
                )
            })
            .collect()
    }

    /// END_DELAYED: returns when the parity of every stripe the window touched is durable.
    pub fn delayed_end(&self, token: &str) -> Result<(), StoreError> {
        self.check_usable()?;
        let _shared = self.gate.read();
        let plans = {
            let mut core = self.core.lock();
            let Some(w) = core.state.windows.get(token).cloned() else {
                return Err(StoreError::BadInput(format!(
                    "no open delayed window has token '{token}'; `exaraid store status` lists the open windows"
                )));
            };
            let lost = self.lost_ranges(&core, w.window);
            if !lost.is_empty() {
                let list: Vec<String> = lost
                    .iter()
                    .map(|(n, s, e, oss)| format!("'{n}' bytes {s}..{e} (OSS {oss})"))
                    .collect();
                return Err(StoreError::DataLost(format!(
                    "delayed window {token} cannot end: an OSS failed while the window was open and these ranges had their only copy there, without parity: {}. Everything else stays readable; rewrite these ranges (or remove the file) and end the window again",
                    list.join(", ")
                )));
            }
            let now_ns = Self::now_ns(&core);
            let plans = match core
                .strategy
                .on_hint(&Hint::EndDelayed { window: w.window }, now_ns)
            {
                Ok(p) => p,
                // The timeout already computed the parity: END has nothing left to do.
                Err(PlanError::WindowTimedOut { .. }) => Vec::new(),
                Err(e) => return Err(plan_err(e)),
            };
            self.journal(
                &mut core,
                Rec::Input(Input::EndDelayed {
                    window: w.window,
                    now_ns,
                }),
                false,
            )?;
            self.admit(plans)
        };
        self.run_plans(plans, None)?;
        let mut core = self.core.lock();
        self.journal(
            &mut core,
            Rec::WindowEnd {
                token: token.to_string(),
            },
            true,
        )?;
        Ok(())
    }

    /// A delayed window as a guard: `end()` returns when the parity is durable. Dropping the
    /// guard without `end()` leaves the window open (its timeout will protect the data).
    pub fn delayed_window(&self, name: &str) -> Result<DelayedWindow<'_>, StoreError> {
        Ok(DelayedWindow {
            store: self,
            token: self.delayed_start(name)?,
        })
    }
}

/// An open delayed window (see [`Store::delayed_window`]).
pub struct DelayedWindow<'a> {
    store: &'a Store,
    token: String,
}

impl DelayedWindow<'_> {
    pub fn token(&self) -> &str {
        &self.token
    }
    /// END_DELAYED: returns when the parity of the window's stripes is durable.
    pub fn end(self) -> Result<(), StoreError> {
        self.store.delayed_end(&self.token)
    }
}
