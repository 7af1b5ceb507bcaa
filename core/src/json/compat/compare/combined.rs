//! Combined schemas (`allOf`, `anyOf`, `oneOf`): pairing the members of
//! the original with those of the update, by structure first, then by a
//! maximum matching of the compatible pairs.

use super::*;

/// Past this many pairs of members left unpaired by structure, members of a
/// combined schema that look alike (the same sketch) pair first, when they
/// compare compatibly, instead of trying every pair.
const MAX_EXACT_PAIRS: usize = 2_500;

impl<'m, 'a> Comparer<'m, 'a> {
    pub(super) fn combined(
        &mut self,
        side: Side,
        out: &mut Vec<Rel>,
        (o, oc, osubs): (Id, Criterion, &[Id]),
        (u, uc, usubs): (Id, Criterion, &[Id]),
    ) {
        let criterion_change = if oc == uc {
            None
        } else if uc == Criterion::Any
            || (uc == Criterion::One && (oc == Criterion::All || osubs.len() == 1))
            || (uc == Criterion::All && osubs.len() == 1 && usubs.len() == 1)
        {
            Some(K::CombinedTypeExtended)
        } else {
            Some(K::CombinedTypeChanged)
        };
        if let Some(kind) = criterion_change {
            out.push(rel(kind, ""));
            if kind == K::CombinedTypeChanged {
                return;
            }
        }
        let (oi, ui) = side.indices();
        let osubs = self.dedup(oi, o, osubs);
        let usubs = self.dedup(ui, u, usubs);
        if self.exhausted {
            return;
        }
        if osubs.len() < usubs.len() {
            out.push(rel(
                if uc == Criterion::All {
                    K::ProductTypeExtended
                } else {
                    K::SumTypeExtended
                },
                "",
            ));
        } else if osubs.len() > usubs.len() {
            out.push(rel(
                if oc == Criterion::All {
                    K::ProductTypeNarrowed
                } else {
                    K::SumTypeNarrowed
                },
                "",
            ));
        }
        // Each original member's partner in the update, with its changes.
        let mut partner: Vec<Option<(usize, Rc<[Rel]>)>> = vec![None; osubs.len()];
        let mut taken = vec![false; usubs.len()];
        let (om, um) = self.pair(side);
        // Members of the same structure pair up, unchanged, uncompared.
        let full = |canon: &Canon, model: &Model<'a>, ids: &[Id]| -> Vec<Option<u64>> {
            ids.iter().map(|&id| canon.full(model, id)).collect()
        };
        let (okeys, ukeys) = (
            full(&self.canon[oi], om, &osubs),
            full(&self.canon[ui], um, &usubs),
        );
        for (i, j) in equal_pairs(&okeys, &ukeys, &partner, &taken) {
            partner[i] = Some((j, Rc::from([])));
            taken[j] = true;
        }
        // Members that differ only in annotations pair up next: their
        // changes are compatible, whatever else they could pair with.
        let shape = |canon: &Canon, model: &Model<'a>, ids: &[Id]| -> Vec<Option<u64>> {
            ids.iter().map(|&id| canon.shape(model, id)).collect()
        };
        let (okeys, ukeys) = (
            shape(&self.canon[oi], om, &osubs),
            shape(&self.canon[ui], um, &usubs),
        );
        for (i, j) in equal_pairs(&okeys, &ukeys, &partner, &taken) {
            let sub = self.compare(side, Some(osubs[i]), Some(usubs[j]));
            if compatible(&sub) {
                partner[i] = Some((j, sub));
                taken[j] = true;
            }
        }
        if !self.charge(osubs.len().saturating_add(usubs.len())) {
            return;
        }
        // Too many left to try every pair (members that reach a recursive
        // `$ref` have no structural id, and a change below one changes them
        // all): members with the same sketch pair up when they compare
        // compatibly.
        let unpaired =
            partner.iter().filter(|p| p.is_none()).count() * taken.iter().filter(|t| !**t).count();
        if unpaired > MAX_EXACT_PAIRS {
            let visits = Canon::sketch_pair(self.models, &mut self.canon, &mut self.interner);
            if !self.charge(visits) {
                return;
            }
            let (om, um) = self.pair(side);
            let sketch = |canon: &Canon, model: &Model<'a>, ids: &[Id]| -> Vec<Option<u64>> {
                ids.iter()
                    .map(|&id| Some(canon.sketch(model, id)))
                    .collect()
            };
            let (okeys, ukeys) = (
                sketch(&self.canon[oi], om, &osubs),
                sketch(&self.canon[ui], um, &usubs),
            );
            for (i, j) in equal_pairs(&okeys, &ukeys, &partner, &taken) {
                let sub = self.compare(side, Some(osubs[i]), Some(usubs[j]));
                if compatible(&sub) {
                    partner[i] = Some((j, sub));
                    taken[j] = true;
                }
            }
        }
        // The rest is matched: compatible pairs (original member, update
        // member) with their changes, and a maximum matching over them.
        let rest_o: Vec<usize> = (0..osubs.len()).filter(|&i| partner[i].is_none()).collect();
        let rest_u: Vec<usize> = (0..usubs.len()).filter(|&j| !taken[j]).collect();
        let mut edges: Vec<Vec<(usize, Rc<[Rel]>)>> = Vec::with_capacity(rest_o.len());
        for &i in &rest_o {
            let mut row = Vec::new();
            for (c, &j) in rest_u.iter().enumerate() {
                let sub = self.compare(side, Some(osubs[i]), Some(usubs[j]));
                if self.exhausted {
                    return;
                }
                if compatible(&sub) {
                    row.push((c, sub));
                }
            }
            edges.push(row);
        }
        let Some(matched) = self.maximum_matching(&edges, rest_u.len()) else {
            return;
        };
        for (r, c) in matched.into_iter().enumerate() {
            if let Some(c) = c {
                if let Some((_, sub)) = edges[r].iter().find(|(cc, _)| *cc == c) {
                    partner[rest_o[r]] = Some((rest_u[c], Rc::clone(sub)));
                }
            }
        }
        let mut count = 0;
        for (i, p) in partner.iter().enumerate() {
            if let Some((_, sub)) = p {
                count += 1;
                extend_under(out, &format!("{}/{i}", oc.keyword()), sub);
            }
        }
        if count < osubs.len().min(usubs.len()) {
            out.push(rel(K::CombinedTypeSubschemasChanged, ""));
        }
    }

    /// The members `subs` of combined node `node` in model `m`, members
    /// with the same JSON counted once (first occurrence kept), as
    /// Confluent's `LinkedHashSet` does.
    pub(super) fn dedup(&mut self, m: usize, node: Id, subs: &[Id]) -> Rc<[Id]> {
        let model = self.models[m];
        let key = (m, node);
        if let Some(found) = self.deduped.get(&key) {
            return Rc::clone(found);
        }
        if !self.charge(subs.len()) {
            return Rc::from([]);
        }
        let mut seen = HashSet::with_capacity(subs.len());
        let kept: Rc<[Id]> = subs
            .iter()
            .copied()
            .filter(|&s| match model.nodes[s].source {
                Some(src) => seen.insert(self.interner.value(src)),
                None => true,
            })
            .collect();
        self.deduped.insert(key, Rc::clone(&kept));
        kept
    }

    /// A maximum matching of a bipartite graph (augmenting paths); `edges[i]`
    /// lists the right-hand nodes left node `i` may take. Returns each left
    /// node's partner, or `None` when the budget ran out.
    pub(super) fn maximum_matching<T>(
        &mut self,
        edges: &[Vec<(usize, T)>],
        right: usize,
    ) -> Option<Vec<Option<usize>>> {
        /// Whether left node `i` finds a partner; `Err` once `steps` run out.
        fn augment<T>(
            i: usize,
            edges: &[Vec<(usize, T)>],
            seen: &mut [bool],
            owner: &mut [Option<usize>],
            steps: &mut usize,
        ) -> Result<bool, ()> {
            for (j, _) in &edges[i] {
                *steps = steps.checked_sub(1).ok_or(())?;
                if seen[*j] {
                    continue;
                }
                seen[*j] = true;
                let free = match owner[*j] {
                    None => true,
                    Some(k) => augment(k, edges, seen, owner, steps)?,
                };
                if free {
                    owner[*j] = Some(i);
                    return Ok(true);
                }
            }
            Ok(false)
        }
        let budget = MAX_WORK.saturating_sub(self.work);
        let mut steps = budget;
        let mut owner: Vec<Option<usize>> = vec![None; right];
        let mut seen = vec![false; right];
        let mut failed = false;
        for i in 0..edges.len() {
            seen.iter_mut().for_each(|s| *s = false);
            if augment(i, edges, &mut seen, &mut owner, &mut steps).is_err() {
                failed = true;
                break;
            }
        }
        // Clearing `seen` costs no more than building the rows did.
        if !self.charge(budget - steps) || failed {
            self.exhausted = true;
            return None;
        }
        let mut partner = vec![None; edges.len()];
        for (j, o) in owner.iter().enumerate() {
            if let Some(i) = o {
                partner[*i] = Some(j);
            }
        }
        Some(partner)
    }
}

/// Pairs of (original, update) indices with the same key, among those not
/// paired yet (`partner`, `taken`): each key's members pair in order.
pub(super) fn equal_pairs<T>(
    okeys: &[Option<u64>],
    ukeys: &[Option<u64>],
    partner: &[Option<T>],
    taken: &[bool],
) -> Vec<(usize, usize)> {
    let mut by_key: HashMap<u64, VecDeque<usize>> = HashMap::new();
    for (j, key) in ukeys.iter().enumerate() {
        if let (Some(key), false) = (key, taken[j]) {
            by_key.entry(*key).or_default().push_back(j);
        }
    }
    let mut pairs = Vec::new();
    for (i, key) in okeys.iter().enumerate() {
        if partner[i].is_some() {
            continue;
        }
        if let Some(j) = key
            .and_then(|k| by_key.get_mut(&k))
            .and_then(VecDeque::pop_front)
        {
            pairs.push((i, j));
        }
    }
    pairs
}
