# A wrong solution on purpose: the numbers are joined as strings ("1" + "2" is "12").
a, b = input().split()
print(a + b)
