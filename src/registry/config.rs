//! A registry's settings behind one accessor, [`Registry::config`]: the
//! compatibility level, the registry mode and the rest ([`Settings`]), of
//! one name or registry-wide, each read and set in one way.

use dataschema_core::{Compatibility, Error, ModeRefusal};

use super::{check_name, Registry, Settings};
use crate::store::Mode;

/// A registry's settings: [`Registry::config`].
///
/// Every setting is read and set in the same way. `name` is a name
/// (`Some`) or the registry-wide default (`None`). `compatibility`,
/// `mode` and `settings` answer what is set there, if anything; the
/// `_in_effect` readers answer what a name follows (its own, else the
/// default's, else Confluent's default). `set_compatibility`, `set_mode`
/// and `set_settings` set (`Some`) or clear (`None`) it. The settings are
/// kept by the store: a persistent store keeps them across restarts and
/// shares them between replicas.
///
/// ```
/// use dataschema::{Compatibility, MemoryStore, Registry};
///
/// let registry = Registry::new(MemoryStore::new());
/// let config = registry.config();
/// config.set_compatibility(None, Some(Compatibility::Full))?;
/// config.set_compatibility(Some("order"), Some(Compatibility::None))?;
/// assert_eq!(config.compatibility_in_effect("order")?, Compatibility::None);
/// assert_eq!(config.compatibility_in_effect("invoice")?, Compatibility::Full);
/// config.set_compatibility(Some("order"), None)?;
/// assert_eq!(config.compatibility(Some("order"))?, None);
/// # Ok::<(), dataschema::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct RegistryConfig<'r> {
    registry: &'r Registry,
}

impl std::fmt::Debug for RegistryConfig<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryConfig").finish_non_exhaustive()
    }
}

impl Registry {
    /// The registry's settings (compatibility levels, modes, [`Settings`]),
    /// read and set through one accessor; see [`RegistryConfig`].
    pub fn config(&self) -> RegistryConfig<'_> {
        RegistryConfig { registry: self }
    }
}

impl RegistryConfig<'_> {
    fn store(&self) -> &dyn crate::store::Store {
        &*self.registry.inner.store
    }

    /// The compatibility level set for `name` (`Some`), or the default
    /// (`None`), if one was set.
    pub fn compatibility(&self, name: Option<&str>) -> Result<Option<Compatibility>, Error> {
        self.store().compatibility(name)
    }

    /// The compatibility level in effect for `name`: its own, else the
    /// default set, else [`Compatibility::Backward`] as in Confluent Schema
    /// Registry.
    pub fn compatibility_in_effect(&self, name: &str) -> Result<Compatibility, Error> {
        if let Some(level) = self.store().compatibility(Some(name))? {
            return Ok(level);
        }
        Ok(self.store().compatibility(None)?.unwrap_or_default())
    }

    /// Sets (`Some`) or clears (`None`) the compatibility level of `name`
    /// (`Some`) or the default (`None`), which names without one of their
    /// own follow (else [`Compatibility::Backward`]). Refused where the
    /// mode is read-only ([`configurable`](RegistryConfig::configurable)).
    pub fn set_compatibility(
        &self,
        name: Option<&str>,
        level: Option<Compatibility>,
    ) -> Result<(), Error> {
        if let Some(name) = name {
            check_name(name)?;
        }
        self.configurable(name)?;
        self.store().set_compatibility(name, level)
    }

    /// The registry [`Mode`] set for `name` (`Some`), or registry-wide
    /// (`None`), if one was set.
    pub fn mode(&self, name: Option<&str>) -> Result<Option<Mode>, Error> {
        self.store().mode(name)
    }

    /// The registry [`Mode`] in effect for `name`: its own, else the
    /// registry-wide one, else [`Mode::ReadWrite`].
    pub fn mode_in_effect(&self, name: &str) -> Result<Mode, Error> {
        if let Some(mode) = self.store().mode(Some(name))? {
            return Ok(mode);
        }
        Ok(self.store().mode(None)?.unwrap_or_default())
    }

    /// Sets (`Some`) or clears (`None`) the registry [`Mode`] of `name`
    /// (`Some`) or the registry-wide one (`None`). A switch to
    /// [`Mode::Import`] from another mode in effect is refused where live
    /// versions are held (of `name` in any namespace; for the registry-wide
    /// mode, of any name): [`Error::SettingsRefused`] with
    /// [`ModeRefusal::VersionsHeld`], as Confluent refuses it without
    /// `force=true` (`KafkaSchemaRegistry.setMode`, v8.2.0);
    /// [`force_mode`](RegistryConfig::force_mode) switches anyway. A
    /// read-only name's mode may change (that is how it becomes writable
    /// again).
    pub fn set_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        self.change_mode(name, mode, false)
    }

    /// [`set_mode`](RegistryConfig::set_mode), switching to IMPORT even
    /// where live versions are held (Confluent's `PUT /mode?force=true`).
    pub fn force_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        self.change_mode(name, mode, true)
    }

    fn change_mode(
        &self,
        name: Option<&str>,
        mode: Option<Mode>,
        force: bool,
    ) -> Result<(), Error> {
        if let Some(name) = name {
            check_name(name)?;
        }
        if mode == Some(Mode::Import) && !force {
            let current = match name {
                Some(name) => self.mode_in_effect(name)?,
                None => self.store().mode(None)?.unwrap_or_default(),
            };
            if current != Mode::Import && self.registry.holds_live(name)? {
                return Err(Error::SettingsRefused {
                    name: name.map(str::to_owned),
                    refusal: ModeRefusal::VersionsHeld,
                });
            }
        }
        self.store().set_mode(name, mode)
    }

    /// The settings set for `name` (`Some`), or for the default (`None`),
    /// beside the compatibility level, if any were set.
    pub fn settings(&self, name: Option<&str>) -> Result<Option<Settings>, Error> {
        let Some(text) = self.store().config(name)? else {
            return Ok(None);
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|err| Error::Store {
            source: format!("the stored settings of {name:?} are not JSON: {err}").into(),
        })?;
        Settings::from_json(&value)
            .map(Some)
            .map_err(|why| Error::Store {
                source: format!("the stored settings of {name:?} are unreadable: {why}").into(),
            })
    }

    /// The settings in effect for `name`: its own, each field falling back
    /// to the default's.
    pub fn settings_in_effect(&self, name: &str) -> Result<Settings, Error> {
        let own = self.settings(Some(name))?.unwrap_or_default();
        let default = self.settings(None)?.unwrap_or_default();
        Ok(own.or(&default))
    }

    /// Sets (`Some`) or clears (`None`) the settings of `name` (`Some`) or
    /// of the default (`None`). Refused where the mode is read-only
    /// ([`configurable`](RegistryConfig::configurable)).
    pub fn set_settings(
        &self,
        name: Option<&str>,
        settings: Option<&Settings>,
    ) -> Result<(), Error> {
        if let Some(name) = name {
            check_name(name)?;
        }
        self.configurable(name)?;
        let text = settings
            .filter(|settings| !settings.is_empty())
            .map(|settings| settings.to_json().to_string());
        self.store().set_config(name, text.as_deref())
    }

    /// Whether the settings (compatibility level and the rest) of `name`
    /// (`Some`), or the registry-wide ones (`None`), may change: not where
    /// the registry [`Mode`] in effect is read-only (the name's, else the
    /// registry-wide one; for `None`, the registry-wide one), as Confluent
    /// refuses `PUT` and `DELETE /config` (`KafkaSchemaRegistry.java`,
    /// `updateConfig` and `deleteSubjectConfig`, v8.2.0:
    /// `isReadOnlyMode(subject)`). Every change of settings meets it here,
    /// whichever API or command asks ([`Error::SettingsRefused`]).
    pub fn configurable(&self, name: Option<&str>) -> Result<(), Error> {
        let mode = match name {
            Some(name) => self.mode_in_effect(name)?,
            None => self.store().mode(None)?.unwrap_or_default(),
        };
        if mode.is_read_only() {
            return Err(Error::SettingsRefused {
                name: name.map(str::to_owned),
                refusal: ModeRefusal::ReadOnly,
            });
        }
        Ok(())
    }
}
