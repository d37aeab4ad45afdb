-- Starting data, inserted only where missing: every instance runs this at startup and the data outlives restarts.

INSERT INTO stock (sku, quantity) SELECT 'ESPRESSO-MACHINE', 100 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'ESPRESSO-MACHINE');
INSERT INTO stock (sku, quantity) SELECT 'GRINDER', 50 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'GRINDER');
INSERT INTO stock (sku, quantity) SELECT 'KETTLE', 20 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'KETTLE');

INSERT INTO price (sku, cents) SELECT 'ESPRESSO-MACHINE', 34900 WHERE NOT EXISTS (SELECT 1 FROM price WHERE sku = 'ESPRESSO-MACHINE');
INSERT INTO price (sku, cents) SELECT 'GRINDER', 12900 WHERE NOT EXISTS (SELECT 1 FROM price WHERE sku = 'GRINDER');
INSERT INTO price (sku, cents) SELECT 'KETTLE', 3900 WHERE NOT EXISTS (SELECT 1 FROM price WHERE sku = 'KETTLE');
