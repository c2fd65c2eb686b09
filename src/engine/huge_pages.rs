//! Huge pages for the search's large tables. Their slots are read at
//! random, so with the system's small pages nearly every probe of a table
//! of gigabytes misses the processor's cache of page addresses as well as
//! its data caches; a table backed by 2 MB pages takes one entry of that
//! cache where it took 512.

/// Asks the system to back `room` (a table's slots, or the room reserved
/// for them) with huge pages, before it is first written: the pages are
/// chosen as they are first touched. Advice only: where the system
/// declines, or has no such pages, nothing changes. Whether the advice
/// was given and taken (not for room smaller than a huge page).
pub(super) fn advise<T>(room: &mut [T]) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// The size of a huge page, below which no table gains one.
        const HUGE: usize = 2 << 20;
        const PAGE: usize = 4096;
        let start = room.as_mut_ptr() as usize;
        let end = start + size_of_val(room);
        // The whole small pages inside the room, as the system
        // takes advice for whole pages only.
        let first = start.next_multiple_of(PAGE);
        let length = end.saturating_sub(first) / PAGE * PAGE;
        if length < HUGE {
            return false;
        }
        // SAFETY: the range lies inside memory `room` borrows, and the
        // advice changes how it is backed, not what it holds.
        unsafe { libc::madvise(first as *mut libc::c_void, length, libc::MADV_HUGEPAGE) == 0 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = room;
        false
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    /// The flags the system keeps for the mapping holding `address`, as
    /// `/proc/self/smaps` lists them (`hg`: advised to take huge pages).
    fn flags_at(address: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((start, end)) = range.split_once('-')
                && let (Ok(start), Ok(end)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                )
            {
                inside = (start..end).contains(&address);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return flags.to_string();
            }
        }
        panic!("no mapping holds {address:#x}")
    }

    /// A table of 8 MB is advised over its whole pages, its middle among
    /// them, and keeps what it holds; one smaller than a huge page is not
    /// advised at all.
    #[test]
    fn a_table_of_megabytes_is_advised_and_a_small_one_is_not() {
        let mut table: Vec<u64> = (0..1 << 20).collect();
        let middle = table.as_ptr() as usize + (4 << 20);
        // A system built with huge pages takes the advice; one built
        // without refuses it, and then there is nothing to look for.
        let advised = super::advise(&mut table);
        if std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            assert!(advised);
        }
        if advised {
            let flags = flags_at(middle);
            assert!(flags.split_whitespace().any(|flag| flag == "hg"), "{flags}");
        }
        assert!(table.iter().enumerate().all(|(i, &slot)| slot == i as u64));
        let mut small = vec![0u64; 1 << 10];
        assert!(!super::advise(&mut small));
    }
}
