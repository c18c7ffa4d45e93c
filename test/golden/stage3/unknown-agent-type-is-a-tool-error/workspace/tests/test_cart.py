from src.cart import total
