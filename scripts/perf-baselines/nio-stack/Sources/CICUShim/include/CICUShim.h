int icu_shim_open(void);
