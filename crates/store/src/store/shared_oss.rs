//! Two store directories on one OSS directory. A `cp -a` of a store directory copies an OSS
//! directory inside it that is a symlink to another disk as the symlink (review s14r2
//! R14b-5), and a copy of a store directory whose OSS directories are outside it
//! (`--oss-dirs`) names the very same ones: both copies then write one OSS directory, and
//! whichever writes second is refused for good afterwards ("older than its OSS directories"),
//! having overwritten the other's bytes. The store cannot tell such a copy from a move by its
//! own files (a move is legitimate), but the OSS can say who last wrote it: every epoch it is
//! told names the store directory that told it (`backend::epoch_file_store_dir`). An open
//! through another directory is refused while that one still exists and its superblock
//! names the same OSS directory (two live stores); a moved store (its old directory gone)
//! opens. `rebuild --to` refuses a target that is such a live OSS of another store directory
//! (item 7 of the session-14 note: it emptied a labelled directory in use by a copy).
//!
//! Directories are compared as the file system knows them (device and inode, symlinks
//! followed), so a store directory reached through a symlink or a bind mount is itself, and
//! an OSS directory reached through a symlink is its target.
//!
//! Files shared by hard links (review s16r2 R16b-1). A hard-link copy of a store (`cp -al`,
//! `cp -l`, an rsnapshot-style snapshot; the store closed) makes new directories, which the
//! check above tells apart, around the very same files: every zone, epoch and extents file
//! of every OSS and the journal. The store writes those in place (pwrite, append,
//! truncate), so the copy's first write changed the original's bytes, and the original was
//! refused for good afterwards ("older than its OSS directories"). A store whose files it
//! writes in place have more than one link opens for reads only (`hard_linked_cause`),
//! the original as well as the copy: the store cannot tell which is which, and either one
//! writing changes the other. Files the store replaces by rename (state, superblock, the
//! extents snapshot) are not checked: a rename breaks the link.

use std::os::unix::fs::MetadataExt;

use super::*;

/// Device and inode of directory `p`, symlinks followed; `None` if it is not (or not
/// reachable as) a directory.
fn dir_identity(p: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(p).ok()?;
    meta.is_dir().then(|| (meta.dev(), meta.ino()))
}

/// A store directory other than `store_dir`, among `candidates`, that exists and whose
/// superblock names `oss_dir` (the same directory, by identity) as one of its OSS
/// directories: that directory and the OSS index it gives `oss_dir`. A candidate that is
/// gone (a moved store), is `store_dir` itself (by another path), or holds no superblock
/// this binary reads is no such store.
fn other_store_naming(
    store_dir: &Path,
    oss_dir: &Path,
    candidates: &[PathBuf],
) -> Option<(PathBuf, usize)> {
    const CANDIDATES_MAX: usize = 2;
    assert!(candidates.len() <= CANDIDATES_MAX, "{candidates:?}");
    let ours = dir_identity(store_dir)?;
    let target = dir_identity(oss_dir)?;
    for other in candidates {
        match dir_identity(other) {
            Some(id) if id != ours => {}
            _ => continue,
        }
        let Ok(sb) = Superblock::load(other) else {
            continue;
        };
        if let Some(index) = sb
            .oss_dirs
            .iter()
            .position(|d| dir_identity(d) == Some(target))
        {
            return Some((other.clone(), index));
        }
    }
    None
}

impl Store {
    /// At open: why the store must open for reads only because files it writes in place
    /// are hard-linked (see the module's comment), if so: the journal of store directory
    /// `dir`, and the files of OSS directories `opened` (none for caller-supplied backends).
    /// One stat for the journal here; the OSSs' were taken by `DirBackend::open`.
    pub(super) fn hard_linked_cause(dir: &Path, opened: &[DirBackend]) -> Option<String> {
        let journal = dir.join(JOURNAL_FILE);
        let mut found: Vec<(String, &Path, u64)> = Vec::new();
        let mut count = 0usize;
        for (i, b) in opened.iter().enumerate() {
            if let Some(h) = b.hard_linked() {
                found.push((format!("OSS {i}'s file"), &h.first, h.first_links));
                count += h.count;
            }
        }
        let journal_links = std::fs::symlink_metadata(&journal)
            .ok()
            .filter(|m| m.is_file())
            .map_or(1, |m| m.nlink());
        if journal_links > 1 {
            found.push(("the store's journal".into(), &journal, journal_links));
            count += 1;
        }
        let (what, path, links) = found.first()?;
        assert!(count >= found.len());
        let osses = opened.iter().filter(|b| b.hard_linked().is_some()).count();
        let more = match count - 1 {
            0 => String::new(),
            n => format!(
                " (and {n} more such file{}; {osses} of its {} OSSs hold such files{})",
                if n == 1 { "" } else { "s" },
                opened.len(),
                if journal_links > 1 && osses > 0 {
                    ", and so does the store's journal"
                } else {
                    ""
                },
            ),
        };
        Some(format!(
            "{what} {} has {links} hard links{more}: the store directory {} shares its files with another directory, a hard-link copy of this store (`cp -al`, `cp -l`, an rsnapshot-style snapshot) or the store such a copy was made of. The store writes these files in place, so any change made here would change the other copy's bytes too (and that copy would be refused for good afterwards)",
            path.display(),
            dir.display()
        ))
    }

    /// The canonical path of the store directory, as told to the OSSs with every epoch.
    pub(super) fn epoch_store_dir(&self) -> Option<PathBuf> {
        self.dir.canonicalize().ok()
    }

    /// At open, before anything changes (not for caller-supplied backends): refuse when an
    /// OSS directory was last told an epoch by another store directory that still exists
    /// and names it too. See the module's comment. An OSS whose epoch file names no store
    /// directory (written by a binary before session 15, or missing, or damaged) is not
    /// checked: the check starts with the first session of this binary that writes.
    pub(super) fn refuse_shared_oss_dirs(dir: &Path, sb: &Superblock) -> Result<(), StoreError> {
        for (i, oss_dir) in sb.oss_dirs.iter().enumerate() {
            let Some(writer) = crate::backend::epoch_file_store_dir(oss_dir) else {
                continue;
            };
            let Some((other, j)) = other_store_naming(dir, oss_dir, &[writer]) else {
                continue;
            };
            let index = match j == i {
                true => String::new(),
                false => format!(" (as its OSS {j})"),
            };
            let real = oss_dir
                .canonicalize()
                .ok()
                .filter(|real| real != oss_dir)
                .map_or(String::new(), |real| {
                    format!(", which is {}", real.display())
                });
            return Err(StoreError::Metadata(format!(
                "{}: OSS {i} ({}{real}) is also an OSS directory of the store directory {}{index}, which told it the latest metadata epoch and still names it. Two store directories must never run on one OSS directory: each overwrites the other's bytes, and the one that writes second is refused for good. One of the two is a copy of the other that shares this OSS directory (`cp -a` copies an OSS directory that is a symlink as the symlink, so both name its target; a copy of a store whose OSS directories are outside it, `--oss-dirs`, names the very same ones), or one was restored beside the other. Nothing was changed. If {2} is an old copy no longer used, delete it (an OSS directory it reaches through a symlink is not deleted with it) and retry; never run the two side by side. To keep both as separate stores, this one needs its own copy of every OSS directory: copy it again from {2} while that is closed, with `cp -aL` (which copies what a symlink points at), or make a new store (`exaraid store init`) and put the files into it; see \"Copying and moving a store\" in docs/store.md",
                dir.display(),
                oss_dir.display(),
                other.display(),
            )));
        }
        Ok(())
    }

    /// `rebuild --to`: refuse a target labelled as this store's OSS `oss` that is in use by
    /// another store directory (a copy of this store): named by its superblock (found where
    /// the target's epoch file says it was last told from, or as the target's parent: the
    /// layout `init --oss N` makes), or told an epoch this store's state and journal did not
    /// make (ahead of them, or another token at a number they made). Why (item 7 of the
    /// session-14 note): the rebuild empties such a directory, a copy's OSS. This store's
    /// own former directory of the OSS (told its epochs only) is accepted.
    pub(super) fn refuse_rebuild_target_in_use(
        &self,
        oss: usize,
        to: &Path,
    ) -> Result<(), StoreError> {
        let candidates: Vec<PathBuf> = crate::backend::epoch_file_store_dir(to)
            .into_iter()
            .chain(to.parent().map(Path::to_path_buf))
            .collect();
        if let Some((other, j)) = other_store_naming(&self.dir, to, &candidates) {
            return Err(StoreError::BadInput(format!(
                "refused, nothing changed: the rebuild target {} is OSS {j} of the store directory {}, which uses it (a copy of this store: the directory carries this store's label); the rebuild empties its target, which would destroy that store's OSS. Pick an empty directory; if {1} is a copy no longer used, delete it first",
                to.display(),
                other.display()
            )));
        }
        let Some(told) = crate::backend::epoch_file_epoch(to) else {
            return Ok(());
        };
        let core = self.core.lock();
        let on_record = core.state.metadata_epoch();
        let recorded_number = on_record.map_or(0, |e| e.number);
        let another = told.number > recorded_number
            || (told.number == recorded_number && Some(told) != on_record)
            || Store::epoch_of_another_line(&core.state, told).is_some();
        if another {
            return Err(StoreError::BadInput(format!(
                "refused, nothing changed: the rebuild target {} carries this store's label for OSS {oss}, but it was told metadata epoch {} with token {:08x}, which this store's state and journal (at epoch {recorded_number}) did not make: it is, or was, an OSS directory of another copy of this store, which wrote it since, and the rebuild would empty it. Pick an empty directory; if that copy is gone for good and {0} is of no use, empty it yourself and retry",
                to.display(),
                told.number,
                told.token
            )));
        }
        Ok(())
    }
}
