//! Splitting pure work over the machine's cores with scoped threads. Used where a 10,000-item
//! PR makes one pass cost tens of milliseconds (hashing bodies, rendering JSON); small inputs stay
//! on the calling thread.

/// Maps `f` over consecutive chunks of `items` (each given with the index of its first element)
/// on up to one thread per core, returning the results in chunk order. Inputs shorter than
/// `2 * min_chunk` run on the calling thread as one chunk. A chunk whose thread panicked is
/// recomputed on the calling thread, so the caller always gets every chunk.
pub fn map_chunks<T, R, F>(items: &[T], min_chunk: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &[T]) -> R + Sync,
{
    map_chunks_on(cores(), items, min_chunk, f)
}

/// The number of cores to spread work over (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// [`map_chunks`] on up to `threads` threads, for work that waits on the system more than it
/// computes (reading thousands of small files), where more threads than cores pay.
pub fn map_chunks_on<T, R, F>(threads: usize, items: &[T], min_chunk: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &[T]) -> R + Sync,
{
    let min_chunk = min_chunk.max(1);
    if threads < 2 || items.len() < 2 * min_chunk {
        return vec![f(0, items)];
    }
    let chunk = items.len().div_ceil(threads).max(min_chunk);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(i, part)| {
                let start = i * chunk;
                (start, part, scope.spawn(move || f(start, part)))
            })
            .collect();
        handles
            .into_iter()
            .map(|(start, part, h)| h.join().unwrap_or_else(|_| f(start, part)))
            .collect()
    })
}

/// Splits `items` into at most `states.len()` consecutive chunks (of at least `min_chunk`
/// items, except a shorter input) and runs `f` on each, with the index of its first item and
/// exclusive use of one state (a buffer reused across calls, say), on its own thread. Returns
/// the chunks' results in order (chunk `i` used `states[i]`), or `None` when a thread panicked.
pub fn for_chunks_with<T, S, R, F>(
    items: &[T],
    states: &mut [S],
    min_chunk: usize,
    f: F,
) -> Option<Vec<R>>
where
    T: Sync,
    S: Send,
    R: Send,
    F: Fn(usize, &[T], &mut S) -> R + Sync,
{
    let (first, rest) = states.split_first_mut()?;
    let min_chunk = min_chunk.max(1);
    if rest.is_empty() || items.len() < 2 * min_chunk {
        return Some(vec![f(0, items, first)]);
    }
    let chunk = items.len().div_ceil(states.len()).max(min_chunk);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .zip(states.iter_mut())
            .enumerate()
            .map(|(i, (part, state))| scope.spawn(move || f(i * chunk, part, state)))
            .collect();
        handles.into_iter().map(|h| h.join().ok()).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_item_in_order() {
        let items: Vec<usize> = (0..10_001).collect();
        for min in [1, 7, 512, 20_000] {
            let parts = map_chunks(&items, min, |start, part| {
                assert_eq!(part.first().copied(), Some(start));
                part.to_vec()
            });
            assert_eq!(parts.concat(), items, "min chunk {min}");
        }
        let empty: Vec<usize> = Vec::new();
        assert_eq!(map_chunks(&empty, 4, |_, p| p.len()), vec![0]);
    }

    #[test]
    fn chunks_with_states_cover_every_item_and_reuse_the_states() {
        let items: Vec<usize> = (0..1_000).collect();
        let mut states: Vec<Vec<usize>> = vec![Vec::new(); 3];
        for round in 0..2 {
            let results = for_chunks_with(&items, &mut states, 10, |start, part, seen| {
                assert_eq!(part.first().copied(), Some(start));
                seen.extend_from_slice(part);
                part.len()
            });
            assert_eq!(results, Some(vec![334, 334, 332]));
            let all: Vec<usize> = states.iter().flatten().copied().collect();
            assert_eq!(all.len(), 1_000 * (round + 1));
        }
        // Too few items to split: one chunk, on the first state.
        let mut states: Vec<Vec<usize>> = vec![Vec::new(); 3];
        let results = for_chunks_with(&items[..15], &mut states, 10, |_, part, seen| {
            seen.extend_from_slice(part);
        });
        assert_eq!(results, Some(vec![()]));
        assert_eq!(states[0].len(), 15);
        assert!(for_chunks_with(&items, &mut Vec::<()>::new(), 1, |_, _, ()| ()).is_none());
        // A chunk that panics is reported, not lost.
        let mut states = vec![(); 2];
        let panicked = for_chunks_with(&items, &mut states, 1, |start, _, ()| {
            assert!(start == 0, "boom");
        });
        assert!(panicked.is_none());
    }
}
