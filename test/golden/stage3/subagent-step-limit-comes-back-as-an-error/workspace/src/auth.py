def login(user, password):
    """Checks a password against the stored hash."""
    return check_hash(user.password_hash, password)
