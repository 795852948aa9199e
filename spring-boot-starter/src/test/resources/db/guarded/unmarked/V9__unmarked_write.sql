-- Writes fenced rows without a mark of its own: refused, even right after a migration that marked itself.
UPDATE orders SET status = 'unmarked' WHERE id = 3;
