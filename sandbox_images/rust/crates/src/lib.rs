pub fn unused() {}
