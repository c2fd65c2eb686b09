//! A reusable buffer of options, each a sum of components, stored flat.

/// The options of one position, in the order listed. It holds at most
/// `limit` options, so that a rule cannot run away with memory.
#[derive(Debug, Clone)]
pub struct Options<P> {
    parts: Vec<P>,
    ends: Vec<usize>,
    limit: usize,
    /// The most options kept, below `limit` for a listing that must not
    /// hold many (see [`Options::cap`]); the assignments tried are still
    /// counted against `limit`.
    cap: usize,
}

/// An option past the buffer's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyOptions {
    pub limit: usize,
}

impl<P> Options<P> {
    pub fn new(limit: usize) -> Self {
        Options {
            parts: Vec::new(),
            ends: Vec::new(),
            limit,
            cap: usize::MAX,
        }
    }

    /// The most options (and, for rule writers, assignments tried) allowed.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Sets the most options kept, whatever the limit (`usize::MAX`: as
    /// many as the limit allows).
    pub fn cap(&mut self, most: usize) {
        self.cap = most;
    }

    pub fn clear(&mut self) {
        self.parts.clear();
        self.ends.clear();
    }

    /// Adds a component to the option being built.
    pub fn push_part(&mut self, part: P) {
        self.parts.push(part);
    }

    /// Ends the option being built: the parts pushed since the last one.
    pub fn end_option(&mut self) -> Result<(), TooManyOptions> {
        let most = self.limit.min(self.cap);
        if self.ends.len() >= most {
            return Err(TooManyOptions { limit: most });
        }
        self.ends.push(self.parts.len());
        Ok(())
    }

    /// Drops the parts pushed since the last complete option.
    pub fn abandon_option(&mut self) {
        self.parts.truncate(self.ends.last().copied().unwrap_or(0));
    }

    /// Adds a whole option.
    pub fn push(&mut self, option: impl IntoIterator<Item = P>) -> Result<(), TooManyOptions> {
        self.parts.extend(option);
        self.end_option()
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The options, each as the slice of its components.
    pub fn iter(&self) -> impl Iterator<Item = &[P]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.parts[start..end])
    }
}
