package dev.fencing.internal.sql;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The PostgreSQL tables whose rows are, or include, rows of a fenced table: its inheritance
 * children and partitions (their rows are the fenced table's) and its inheritance parents and
 * partitioned parents (their rows include the fenced table's), at any depth. Every write of one
 * by its own name writes fenced rows where no fence check reaches them, whatever the write.
 */
final class RowSharing {

    private RowSharing() {
    }

    /**
     * How each relative (folded name) shares rows with a fenced table, for the refusal's message
     * ("orders_2024 is a partition of fenced table orders"). A relative that is fenced itself is
     * left out by identity, not by name: a same-named table elsewhere may be unfenced.
     */
    static Map<String, String> relatives(Set<LocatedTable> fenced, List<CatalogReach.Inheritance> edges) {
        Map<LocatedTable, String> how = new LinkedHashMap<>();
        for (LocatedTable table : fenced) {
            walk(table, edges, true, how);
            walk(table, edges, false, how);
        }
        Map<String, String> relatives = new LinkedHashMap<>();
        how.forEach((table, description) -> {
            if (!fenced.contains(table)) {
                relatives.putIfAbsent(table.folded(), description);
            }
        });
        return relatives;
    }

    /** The inheritance children and partitions of the fenced tables, at any depth. */
    static Set<LocatedTable> descendants(Set<LocatedTable> fenced, List<CatalogReach.Inheritance> edges) {
        Map<LocatedTable, String> below = new LinkedHashMap<>();
        for (LocatedTable table : fenced) {
            walk(table, edges, true, below);
        }
        return below.keySet();
    }

    /** Every table below ({@code down}) or above {@code fenced}, described against it. */
    private static void walk(LocatedTable fenced, List<CatalogReach.Inheritance> edges, boolean down,
                             Map<LocatedTable, String> how) {
        Map<LocatedTable, Boolean> seen = new HashMap<>();
        Deque<LocatedTable> queue = new ArrayDeque<>(List.of(fenced));
        while (!queue.isEmpty()) {
            LocatedTable at = queue.poll();
            for (CatalogReach.Inheritance edge : edges) {
                LocatedTable from = down ? edge.parent() : edge.child();
                LocatedTable to = down ? edge.child() : edge.parent();
                if (from.equals(at) && seen.putIfAbsent(to, edge.partition()) == null) {
                    queue.add(to);
                    how.putIfAbsent(to, describe(to, fenced, down, edge.partition()));
                }
            }
        }
    }

    private static String describe(LocatedTable relative, LocatedTable fenced, boolean down,
                                   boolean partition) {
        String relation = down
                ? (partition ? " is a partition of fenced table " : " inherits from fenced table ")
                : (partition ? " is the partitioned table holding fenced table " : " is an inheritance parent of fenced table ");
        return relative.name() + relation + fenced.name();
    }
}
