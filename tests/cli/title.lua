-- simt.title without a stage: the step label is a string or {en =, zh =},
-- printed in the script's language (cli.title_steps)
simt.title("T", { en = "step 1 of 2", zh = "第 1 步，共 2 步" })
simt.title({ en = "T2", zh = "题2" }, "plain step")
simt.title("T3")
